import {state, h, render, flash, when, statusBadge, table, canAct, actionAttrs, viewerNote, get, post, query, errorBox, filterForm, go} from './core.js';

// ------------------------------------------------------------------ suppressions
// #/suppressions?address=&tenant=&reason=&status=   the suppression list, filtered; add (operator); lift (operator)

export const SUPPRESSION_REASONS = ['hard_bounce', 'complaint', 'provider_suppression', 'manual'];
const FILTERS = [
  ['address', 'Address contains', 'text'], ['tenant', 'Tenant (blank: every tenant)', 'text'],
  ['reason', 'Reason', SUPPRESSION_REASONS], ['status', 'Status', ['active', 'lifted']],
];

export async function suppressionList(params, seq) {
  render(seq, h('h1', {}, 'Suppressions'), h('p', {class: 'muted'}, 'Loading…'));
  const status = params.status || 'all';
  const page = await get('/suppressions' + query({address: params.address, tenant: params.tenant, reason: params.reason,
    status, offset: params.offset, limit: 100}));
  const filter = filterForm(FILTERS, params, 'sup-filter', (v) => go('#/suppressions' + query(v)), 'Show');
  const rows = page.items.map((s) => ({s, cells: [
    s.id, h('span', {testid: 'sup-address'}, s.address), s.tenant ?? h('span', {class: 'muted'}, 'default'),
    statusBadge(s.reason, 'sup-reason'), why(s),
    h('span', {}, when(s.created_at), ' by ', s.created_by),
    s.active ? statusBadge('active', 'sup-status')
      : h('span', {}, statusBadge('lifted', 'sup-status'), ' ', when(s.lifted_at), ' by ', s.lifted_by, ': ',
        h('span', {testid: 'sup-lifted-why'}, s.lifted_why)),
    s.active ? liftForm(s, params) : '']}));
  render(seq, h('h1', {}, 'Suppressions'),
    h('p', {class: 'hint'}, 'Addresses Mailroom does not mail, per tenant: a hard bounce, a complaint or the provider\'s ',
      'own suppression puts them here; so can an operator. A job to a suppressed address is not sent to it (the job\'s ',
      'timeline says which suppression); lifting keeps the entry with who and why.'),
    viewerNote(), filter, addForm(params),
    h('p', {class: 'muted', testid: 'sup-count'}, `${page.items.length} shown` + (page.next != null ? ' (more: narrow the filter)' : '')),
    table(['Id', 'Address', 'Tenant', 'Reason', 'Why / caused by', 'Added', 'Status', ''], rows, 'sup-table',
      (x) => ({testid: 'sup-row', 'data-id': x.s.id, 'data-address': x.s.address, 'data-active': String(x.s.active)})));
}

/** What put the address on the list: the event and the job it was about, or the operator's words. */
function why(s) {
  if (s.reason === 'manual') return h('span', {testid: 'sup-why'}, s.created_why);
  return h('span', {testid: 'sup-why'}, s.cause,
    s.cause_message_id ? h('span', {class: 'muted', testid: 'sup-cause-job'}, ` (job ${s.cause_message_id}`
      + (s.cause_queue ? ` on ${s.cause_queue}` : '') + (s.cause_event_id != null ? `, provider event ${s.cause_event_id})` : ')')) : '');
}

function liftForm(s, params) {
  const reason = h('input', {testid: 'lift-why', placeholder: 'why lift it (required)', 'aria-label': `why lift ${s.address}`,
    disabled: !canAct()});
  const out = h('span', {testid: 'lift-result'});
  const button = h('button', actionAttrs({type: 'button', testid: 'lift-button', onclick: async () => {
    try {
      const lifted = await post(`/suppressions/${s.id}/lift`, {why: reason.value.trim()});
      flash(`Lifted ${lifted.address}: it is mailed again.`);
      go('#/suppressions' + query(params));
    } catch (e) { out.replaceChildren(errorBox(e, 'lift-error')); }
  }}), 'Lift');
  return h('span', {class: 'inline-action'}, reason, ' ', button, out);
}

function addForm(params) {
  const field = (name, label, placeholder) => h('div', {}, h('label', {for: 'sup-add-' + name}, label),
    h('input', {id: 'sup-add-' + name, name, testid: 'sup-add-' + name, placeholder, disabled: !canAct()}));
  const out = h('div', {testid: 'sup-add-result'});
  const form = h('form', {class: 'filters', testid: 'sup-add'},
    field('address', 'Address', 'alice@example.com'), field('tenant', 'Tenant', 'blank: the default tenant'),
    field('why', 'Why', 'required, kept with the entry'),
    h('div', {class: 'buttons'}, h('button', actionAttrs({type: 'submit', testid: 'sup-add-submit'}), 'Suppress this address')),
    out);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = (n) => form.elements[n].value.trim();
    try {
      const added = await post('/suppressions', {address: v('address'), tenant: v('tenant') || null, why: v('why')});
      flash(`Suppressed ${added.address} (#${added.id}).`);
      go('#/suppressions' + query(params));
    } catch (err) { out.replaceChildren(errorBox(err, 'sup-add-error')); }
  });
  return h('details', {open: state.roles.length && canAct() ? true : null, testid: 'sup-add-panel'},
    h('summary', {}, 'Add an address'), form);
}
