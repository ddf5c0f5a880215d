// Luzmo's dashboard web component (Lit inside, like our standalone build).
export { LuzmoEmbedDashboard } from '@luzmo/embed';
