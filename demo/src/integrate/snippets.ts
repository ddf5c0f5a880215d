/** The BFF library snippet, kept in TS so it is easy to keep true to the package's API. */
export const bffLibrarySnippet = `// filled in once the BFF's API is final`;
