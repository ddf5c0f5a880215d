// Writes dist/frameworks/{vue,svelte}.d.ts from custom-elements.json: the element's attributes
// and events typed for Vue 3 templates (GlobalComponents) and Svelte 5 (SvelteHTMLElements).
// Run by `npm run build` after the manifest; the manifest is the single source.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../custom-elements.json', import.meta.url), 'utf8'));
const element = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.customElement && d.tagName === 'embedded-dashboard');
if (!element) throw new Error('custom-elements.json has no <embedded-dashboard>');

// `state` is the element's output (reflected), not an input: setting it has no effect.
const inputs = element.attributes.filter((a) => !/setting it has no effect/i.test(a.description ?? ''));
const typeOf = (a) => (a.type?.text ?? 'string').replace(/\s*\|\s*undefined/g, '');
const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
const doc = (text) => (text ? `  /** ${text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim()} */\n` : '');
const eventTypes = [...new Set(element.events.map((e) => e.type.text))];
const header = `// Generated from custom-elements.json by build/framework-types.mjs. Do not edit.
import type { ${['EmbeddedDashboard', ...eventTypes].join(', ')} } from '../index.js';
import type { DashboardVariables } from '@embedded-dashboard/protocol';
`;
const attributeLines = (key) => inputs.map((a) => `${doc(a.description)}  ${JSON.stringify(key(a.name))}?: ${typeOf(a)};`).join('\n');
const eventLines = (key) => element.events.map((e) => `${doc(e.description)}  ${JSON.stringify(key(e.name))}?: (event: ${e.type.text}) => void;`).join('\n');

const vue = `${header}import type { DefineComponent } from 'vue';

/** \`<embedded-dashboard>\`'s attributes and events as Vue template props (\`:src-template\`, \`@dashboard-load\`). */
export interface EmbeddedDashboardVueProps {
${attributeLines(camel)}
${eventLines((name) => camel(`on-${name}`))}
}

declare module 'vue' {
  interface GlobalComponents {
    'embedded-dashboard': DefineComponent<EmbeddedDashboardVueProps>;
  }
}

export type { EmbeddedDashboard };
`;

const svelte = `${header}import type { HTMLAttributes } from 'svelte/elements';

/** \`<embedded-dashboard>\`'s attributes and events in Svelte 5 markup (\`src-template=…\`, \`ondashboard-load={…}\`). */
export interface EmbeddedDashboardSvelteAttributes extends HTMLAttributes<EmbeddedDashboard> {
${attributeLines((name) => name)}
${eventLines((name) => `on${name}`)}
}

declare module 'svelte/elements' {
  interface SvelteHTMLElements {
    'embedded-dashboard': EmbeddedDashboardSvelteAttributes;
  }
}
`;

const out = new URL('../dist/frameworks/', import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(new URL('vue.d.ts', out), vue);
writeFileSync(new URL('svelte.d.ts', out), svelte);
