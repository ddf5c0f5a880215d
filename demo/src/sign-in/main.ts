import { DEMO_CUSTOMERS, type DemoCustomer } from '../../shared/customers.js';

// Each at least 4.5:1 against the avatar's white letter (WCAG AA for normal text).
const AVATAR_COLOURS = ['#c2410c', '#0b7285', '#5f3dc4'];

const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

function customerCard(customer: DemoCustomer, index: number): HTMLLIElement {
  const card = el('li', 'customer card');
  card.dataset.customer = customer.id;

  const header = el('header');
  // Decoration: the name is right beside it.
  const avatar = el('span', 'avatar', customer.name.charAt(0));
  avatar.setAttribute('aria-hidden', 'true');
  avatar.style.background = AVATAR_COLOURS[index % AVATAR_COLOURS.length] ?? '#3b4cca';
  const titles = el('div');
  titles.append(el('h2', undefined, customer.name), el('div', 'user muted', `${customer.user.name} · ${customer.user.email}`));
  header.append(avatar, titles);

  const props = el('ul', 'props');
  for (const [name, value] of Object.entries(customer.properties)) {
    const item = el('li');
    item.append(el('span', undefined, `${name} `), document.createTextNode(String(value)));
    props.append(item);
  }

  const signIn = el('a', 'button', `Sign in as ${customer.name} →`);
  signIn.href = `/login?customer=${encodeURIComponent(customer.id)}`;
  signIn.dataset.testid = `sign-in-${customer.id}`;

  card.append(header, props, signIn);
  return card;
}

document.getElementById('customers')?.replaceChildren(...DEMO_CUSTOMERS.map(customerCard));

// The vendor picked: Superset's sign-in lands on /superset (the demo's server embeds the real one
// there), Metabase's on /metabase (the emulator's Metabase mode).
for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="vendor"]')) {
  radio.addEventListener('change', () => {
    const suffix = radio.checked && (radio.value === 'superset' || radio.value === 'metabase') ? `&vendor=${radio.value}` : '';
    for (const link of document.querySelectorAll<HTMLAnchorElement>('#customers a.button'))
      link.search = `${link.search.replace(/&vendor=(superset|metabase)$/, '')}${suffix}`;
  });
}
