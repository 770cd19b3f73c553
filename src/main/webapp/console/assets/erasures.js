import {h, render, when, statusBadge, kvTable, table, canAct, get, post, errorBox} from './core.js';

// ------------------------------------------------------------------ erasures
// #/erasures   the audit of erasures (never an address: its SHA-256); an operator erases one address (docs/erasure.md)

const WHAT_HAPPENS = 'Its finished jobs are deleted with their attempts and timelines; its open dead letters are '
  + 'discarded and every dead letter loses its payload; its suppression is kept as a SHA-256 hash, so it stays '
  + 'suppressed; everywhere else the address becomes [erased]. This cannot be undone.';

export async function erasureList(params, seq) {
  render(seq, h('h1', {}, 'Erasures'), h('p', {class: 'muted'}, 'Loading…'));
  const list = h('div', {testid: 'erasure-list'}, auditTable(await get('/erasures?limit=100')));
  render(seq, h('h1', {}, 'Erasures'),
    h('p', {class: 'hint'}, 'A data-protection request removes one address from everything Mailroom keeps. The audit ',
      'below holds who asked, when, why and what was changed, never the address: only its SHA-256.'),
    canAct() ? eraseForm(list)
      : h('p', {class: 'hint', testid: 'viewer-note'}, 'You are signed in as a viewer: erasing needs the operator role.'),
    list);
}

/** The SHA-256 shortened; the whole of it on hover and in {@code data-sha256}. */
const shortSha = (sha) => h('code', {title: sha, testid: 'erasure-sha'}, sha.slice(0, 12) + '…');

const counts = (c) => {
  const entries = Object.entries(c || {}).filter(([, n]) => n > 0).sort(([a], [b]) => a.localeCompare(b));
  return entries.length ? h('span', {testid: 'erasure-counts'}, entries.map(([k, n], i) =>
    h('span', {testid: 'erasure-count', 'data-key': k, 'data-n': n}, i ? ', ' : '', `${k} ${n}`)))
    : h('span', {class: 'muted', testid: 'erasure-counts'}, 'nothing found');
};

function auditTable(items) {
  const rows = items.map((e) => ({e, cells: [e.id, when(e.requested_at), e.requested_by, h('span', {testid: 'erasure-reason'}, e.reason),
    statusBadge(e.state, 'erasure-state'), e.runs, counts(e.counts), shortSha(e.address_sha256)]}));
  return table(['Id', 'Requested', 'By', 'Why', 'State', 'Runs', 'Rows changed', 'Address (SHA-256)'], rows, 'erasure-table',
    (x) => ({testid: 'erasure-row', 'data-id': x.e.id, 'data-sha256': x.e.address_sha256}));
}

function recordView(r) {
  return h('div', {testid: 'erase-result'},
    h('p', {testid: 'erase-outcome'}, r.no_op
      ? `Nothing left to erase: this address was erased before (erasure #${r.id}).`
      : `Erased: erasure #${r.id}, ${r.state}.`),
    kvTable([['Address (SHA-256)', r.address_sha256], ['Requested', when(r.requested_at), 'erase-requested-at'],
      ['By', r.requested_by], ['Why', r.reason], ['Finished', when(r.finished_at)], ['Rows changed', counts(r.counts)]],
    'erase-record'));
}

/** Address and reason, then a confirmation in the page saying what will happen; the API's refusal shown as text. */
function eraseForm(list) {
  const field = (name, label, placeholder) => h('div', {}, h('label', {for: 'erase-' + name}, label),
    h('input', {id: 'erase-' + name, name, testid: 'erase-' + name, placeholder, autocomplete: 'off'}));
  const out = h('div', {testid: 'erase-out'});
  const question = h('p', {testid: 'erase-confirm-text'});
  const confirm = h('button', {type: 'button', class: 'danger', testid: 'erase-confirm'}, 'Erase it');
  const cancel = h('button', {type: 'button', class: 'secondary', testid: 'erase-cancel'}, 'Cancel');
  const panel = h('div', {class: 'confirm-panel', testid: 'erase-panel', role: 'group'}, question, confirm, ' ', cancel);
  panel.hidden = true;
  const submit = h('button', {type: 'submit', class: 'danger', testid: 'erase-submit'}, 'Erase this address…');
  const form = h('form', {class: 'filters', testid: 'erase-form'},
    field('address', 'Address', 'alice@example.com'),
    field('reason', 'Why (kept in the audit: not the address)', 'e.g. request #4711'),
    h('div', {class: 'buttons'}, submit), panel, out);
  const v = (n) => form.elements[n].value.trim();
  const close = () => { panel.hidden = true; submit.hidden = false; };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    out.replaceChildren();
    question.textContent = `Erase ${v('address') || '(no address)'}? ${WHAT_HAPPENS}`;
    panel.hidden = false;
    submit.hidden = true;
    confirm.focus();
  });
  cancel.addEventListener('click', close);
  panel.addEventListener('keydown', (e) => { if (e.key === 'Escape') close(); });
  confirm.addEventListener('click', async () => {
    close();
    submit.disabled = true;
    try {
      const r = await post('/erasures', {address: v('address'), reason: v('reason')});
      out.replaceChildren(recordView(r));
      form.elements.address.value = '';
      list.replaceChildren(auditTable(await get('/erasures?limit=100')));
    } catch (err) {
      out.replaceChildren(errorBox(err, 'erase-error'));
    } finally { submit.disabled = false; }
  });
  return h('details', {open: true, testid: 'erase-panel-box'}, h('summary', {}, 'Erase an address'), form);
}
