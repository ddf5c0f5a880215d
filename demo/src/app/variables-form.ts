import type { EmbeddedDashboard } from '@embedded-dashboard/element';
import { VARIABLE_LIMITS, variablesProblem, type DashboardVariables } from '@embedded-dashboard/protocol';

/** Parses the textarea: a JSON object of any documented shape (arrays for multi-selects), within the element's limits. */
export function parseVariablesInput(text: string): DashboardVariables | string {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch {
    return 'Not valid JSON.';
  }
  return variablesProblem(value, VARIABLE_LIMITS) ?? (value as DashboardVariables);
}

/** Wires the variables form to the element's `variables` attribute, both ways. */
export function bindVariablesForm(element: EmbeddedDashboard): void {
  const form = document.getElementById('variables-form') as HTMLFormElement;
  const input = document.getElementById('variables-input') as HTMLTextAreaElement;
  const error = document.getElementById('variables-error') as HTMLElement;
  const apply = () => {
    const parsed = parseVariablesInput(input.value);
    if (typeof parsed === 'string') {
      error.textContent = parsed;
      return;
    }
    error.textContent = '';
    element.setAttribute('variables', JSON.stringify(parsed));
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply();
  });
  // A change made inside the dashboard (the multi-select's array too) shows up in the form, so the next Apply keeps it.
  element.addEventListener('dashboard-variable-change', () => {
    input.value = JSON.stringify(element.currentVariables);
  });
  apply();
}

/** Wires the locale switch to the element's `locale-code`: a change reloads the dashboard without blanking it. */
export function bindLocaleSwitch(element: EmbeddedDashboard): void {
  const select = document.getElementById('locale-select') as HTMLSelectElement;
  const apply = () => {
    if (select.value) element.setAttribute('locale-code', select.value);
    else element.removeAttribute('locale-code');
  };
  select.addEventListener('change', apply);
  apply();
}
