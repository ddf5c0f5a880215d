/** Lit production-build code the standalone bundle cuts, by file under node_modules. */
export const LIT_CUTS: Readonly<Record<string, readonly (readonly [string, string])[]>>;
/** Applies LIT_CUTS to one module; `undefined` when the module is not one of Lit's cut files. Throws when a cut no longer matches. */
export function squeezeLit(id: string, code: string): string | undefined;
