// Tableau's <tableau-viz> web component.
export { TableauViz } from '@tableau/embedding-api';
