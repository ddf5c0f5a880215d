// Our <embedded-dashboard>: the package's whole public surface, so nothing it ships can be
// tree-shaken away (the package is `sideEffects: false`, so a bare import would measure nothing).
export * from '@embedded-dashboard/element';
