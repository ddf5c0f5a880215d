import type { EmbeddedDashboard } from '@embedded-dashboard/element';
import type { VariableValue } from '@embedded-dashboard/protocol';

const isVariableValue = (v: unknown): v is VariableValue =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Parses the textarea: a JSON object of strings, numbers, booleans or null. */
export function parseVariablesInput(text: string): Record<string, VariableValue> | string {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch {
    return 'Not valid JSON.';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'Use a JSON object, e.g. {"rows": 5}.';
  for (const [name, v] of Object.entries(value)) if (!isVariableValue(v)) return `"${name}" must be a string, number, boolean or null.`;
  return value as Record<string, VariableValue>;
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
  // A change made inside the dashboard shows up in the form, so the next Apply keeps it.
  element.addEventListener('dashboard-variable-change', (event) => {
    const current = parseVariablesInput(input.value);
    const merged = { ...(typeof current === 'string' ? {} : current), [event.detail.name]: event.detail.value };
    input.value = JSON.stringify(merged);
  });
  apply();
}
