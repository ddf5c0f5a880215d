// The element with the vendor's embed adapter, as an integrator's bundler makes it from the
// documented imports (packages/element/README.md): the page of the rotation rows 5c and 5d.
import '@embedded-dashboard/element';
import '@embedded-dashboard/element/explo';
