import type { DashboardStrings } from './strings.js';

/**
 * Built-in translations of the element's texts, in a module of their own so a page that needs
 * none ships none.
 *
 * @example
 * import { de } from '@embedded-dashboard/element/strings';
 * document.querySelector('embedded-dashboard').strings = de;
 */
export { en } from './strings.js';
export type { DashboardStrings } from './strings.js';

/** German. */
export const de: DashboardStrings = {
  loading: 'Dashboard wird geladen…',
  ready: 'Dashboard bereit',
  refreshing: 'Dashboard bereit',
  error: 'Das Dashboard konnte nicht geladen werden.',
  unauthenticated: 'Ihre Sitzung ist abgelaufen. Bitte melden Sie sich erneut an.',
  retry: 'Erneut versuchen',
};

/** French. */
export const fr: DashboardStrings = {
  loading: 'Chargement du tableau de bord…',
  ready: 'Tableau de bord prêt',
  refreshing: 'Tableau de bord prêt',
  error: "Le tableau de bord n'a pas pu être chargé.",
  unauthenticated: 'Votre session a expiré. Veuillez vous reconnecter.',
  retry: 'Réessayer',
};
