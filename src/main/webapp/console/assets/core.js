// Mailroom console, shared part: constants, DOM and formatting helpers, the API client, filter forms.

export const API = new URL('../api/v1', location.href).pathname;
export const OPERATOR = 'mailroom-operator';
export const REASONS = ['poison', 'manual_review', 'retries_exhausted', 'unmapped_error', 'handler_error',
  'redelivery_limit', 'too_large'];
export const CLASSES = ['transient', 'throttled', 'ambiguous', 'soft_bounce', 'permanent_recipient', 'content_policy',
  'poison', 'internal', 'unknown', 'systemic'];
export const STATUSES = ['open', 'replaying', 'replayed', 'discarded', 'expired'];
export const LIST_FILTERS = [
  ['queue', 'Queue', 'text'], ['reason', 'Reason', REASONS], ['failure_class', 'Failure class', CLASSES],
  ['error_type', 'Error type', 'text'], ['status', 'Status', STATUSES], ['campaign_id', 'Campaign', 'text'],
  ['tenant', 'Tenant', 'text'], ['from', 'Failed from (ISO instant, e.g. 2026-11-29T10:00:00Z)', 'text'],
  ['to', 'Failed before (ISO instant)', 'text'],
];
export const REDRIVE_FILTERS = [
  ['queue', 'Queue', 'text'], ['reason', 'Reason', REASONS], ['failure_class', 'Failure class', CLASSES],
  ['error_type', 'Error type', 'text'], ['consumer_version', 'Consumer version', 'text'],
  ['campaign_id', 'Campaign', 'text'], ['tenant', 'Tenant', 'text'], ['provider', 'Provider', 'text'],
  ['from', 'Failed from (ISO instant)', 'text'], ['to', 'Failed before (ISO instant)', 'text'],
  ['fingerprint', 'Failure group (its normalised error, exactly)', 'text'],
  ['ids', 'Only these dead-letter ids (comma separated)', 'text'],
];

export const state = {user: null, roles: [], pollTimer: null, routeSeq: 0};

// ------------------------------------------------------------------ DOM and formatting helpers

/** h('tag', {attr: value, onclick: fn}, child...) — children are nodes or text (never parsed as HTML). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'testid') el.setAttribute('data-testid', v);
    // through the CSSOM: the Content-Security-Policy (style-src 'self') refuses a style attribute
    else if (k === 'style') el.style.cssText = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export const svg = (tag, attrs = {}, ...children) => {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k === 'testid' ? 'data-testid' : k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
};

export function view(...children) {
  const main = document.getElementById('view');
  main.replaceChildren();
  append(main, children);
}

/** Paints the page of route {@code seq}, unless the user has moved to another page since it started. */
export function render(seq, ...children) {
  if (seq === state.routeSeq) view(...children);
}

/** A message above the page; {@code tone}: true or 'error' (red), 'info' (neutral: not a success yet), else success. */
export function flash(message, tone = false) {
  const el = document.getElementById('flash');
  const t = tone === true || tone === 'error' ? 'error' : tone === 'info' ? 'info' : 'success';
  el.textContent = message;
  el.className = t === 'success' ? '' : t;
  el.dataset.tone = t;
  el.hidden = !message;
}

export function ageOf(iso) {
  if (!iso) return '—';
  let s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  const d = Math.floor(s / 86400); s -= d * 86400;
  const hrs = Math.floor(s / 3600); s -= hrs * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  if (d) return `${d} d ${hrs} h`;
  if (hrs) return `${hrs} h ${m} min`;
  if (m) return `${m} min ${s} s`;
  return `${s} s`;
}

/** "3 min ago" / "in 2 h": how far {@code iso} is from now, in words. */
export function relative(iso, now = Date.now()) {
  const ms = Date.parse(iso) - now;
  const s = Math.round(Math.abs(ms) / 1000);
  const words = s < 45 ? (s <= 5 ? null : `${s} s`) : s < 3600 ? `${Math.round(s / 60)} min`
    : s < 86400 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86400)} d`;
  if (!words) return 'just now';
  return ms < 0 ? `${words} ago` : `in ${words}`;
}

const LOCAL_TIME = new Intl.DateTimeFormat(undefined, {year: 'numeric', month: 'short', day: 'numeric',
  hour: '2-digit', minute: '2-digit', second: '2-digit'});

/** A time in the browser's zone and relative ("1 Dec 2026, 04:12:33 · 3 min ago"), the exact UTC instant on hover. */
export const when = (iso) => {
  if (!iso || Number.isNaN(Date.parse(iso))) return iso || '—';
  return h('time', {datetime: iso, title: `${iso} (UTC)`, class: 'when'},
    `${LOCAL_TIME.format(new Date(iso))} · ${relative(iso)}`);
};

/** A column name for people: "startedAt" / "started_at" → "Started at", with the few that need more. */
const COLUMN_NAMES = {id: 'Id', jmsMessageId: 'JMS message id', enhancedCode: 'Enhanced status code',
  consumedAttempt: 'Used a retry', irrevocableAt: 'Past the point of no return at', number: 'Attempt'};
export function columnName(key) {
  const camel = key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
  if (COLUMN_NAMES[camel]) return COLUMN_NAMES[camel];
  const words = camel.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A table cell for a value of a generic record: times ("at", "startedAt", "failed_at") through {@link when}, objects as JSON. */
export function attemptCell(key, value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  if (/(^at|At|_at)$/.test(key) && typeof value === 'string') return when(value);
  return value;
}
export const statusBadge = (s, testid) => h('span', {class: `status status-${s}`, testid}, s ?? '—');

export function kvTable(rows, testid) {
  return h('table', {class: 'kv', testid},
    rows.map(([label, value, id]) => h('tr', {}, h('th', {}, label),
      h('td', {testid: id}, value === null || value === undefined || value === '' ? '—' : value))));
}

export function table(headers, rows, testid, rowAttrs = () => ({})) {
  return h('table', {testid},
    h('thead', {}, h('tr', {}, headers.map((x) => h('th', {}, x)))),
    h('tbody', {}, rows.length
      ? rows.map((r, i) => h('tr', rowAttrs(r, i), r.cells.map((c) => h('td', {}, c ?? '—'))))
      : h('tr', {}, h('td', {colspan: headers.length, class: 'muted'}, 'Nothing here.'))));
}

export function canAct() {
  return state.roles.includes(OPERATOR);
}

/** Attributes for an action button: disabled with an explanation for a viewer. */
export function actionAttrs(attrs) {
  return canAct() ? attrs : {...attrs, disabled: true, title: 'Your role can only look: acting needs the operator role'};
}

/**
 * A destructive action asked for in the page, never in a browser dialog: its button opens an inline panel with a
 * reason field, a confirm button and Cancel. Cancel (or Escape) closes the panel and nothing is sent;
 * {@code onConfirm(reason)} runs only on confirm, and only with a reason when one is required.
 * Test ids: {@code <name>-button} opens, {@code <name>-reason}, {@code <name>-confirm}, {@code <name>-cancel},
 * {@code <name>-panel}, {@code <name>-error}.
 */
let confirmIds = 0;
export function confirmAction({name, label, question, confirmLabel, placeholder, reasonRequired = true,
  buttonClass = 'secondary', title, onConfirm}) {
  const id = `${name}-reason-${++confirmIds}`; // one per panel: a page may hold several (one per queue card)
  const reason = h('input', {id, testid: `${name}-reason`, class: 'confirm-reason',
    placeholder: placeholder || (reasonRequired ? 'why (required, kept with the record)' : 'why (optional)')});
  const error = h('span', {class: 'error', testid: `${name}-error`, role: 'alert'});
  const confirm = h('button', {type: 'button', class: 'danger', testid: `${name}-confirm`}, confirmLabel);
  const cancel = h('button', {type: 'button', class: 'secondary', testid: `${name}-cancel`}, 'Cancel');
  const panel = h('div', {class: 'confirm-panel', testid: `${name}-panel`, role: 'group', 'aria-label': question},
    h('label', {for: id}, question), reason, ' ', confirm, ' ', cancel, ' ', error);
  panel.hidden = true;
  const open = h('button', actionAttrs({type: 'button', class: buttonClass, testid: `${name}-button`, title,
    'aria-expanded': 'false'}), label);
  const close = () => {
    panel.hidden = true;
    open.hidden = false;
    open.setAttribute('aria-expanded', 'false');
    reason.value = '';
    error.textContent = '';
    open.focus();
  };
  open.addEventListener('click', () => {
    panel.hidden = false;
    open.hidden = true;
    open.setAttribute('aria-expanded', 'true');
    reason.focus();
  });
  cancel.addEventListener('click', close);
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') close();
    if (e.key === 'Enter' && e.target === reason) confirm.click();
  });
  confirm.addEventListener('click', async () => {
    const why = reason.value.trim();
    if (reasonRequired && !why) {
      error.textContent = ' Say why first: it is kept with the record.';
      reason.focus();
      return;
    }
    // closed before it runs: what it does (a repaint, an error shown by the page) is no longer this panel's
    close();
    confirm.disabled = true;
    try { await onConfirm(why); } finally { confirm.disabled = false; }
  });
  return h('span', {class: 'confirm-action', testid: `${name}-action`}, open, panel);
}

export function viewerNote() {
  return canAct() ? null : h('p', {class: 'hint', testid: 'viewer-note'},
    'You are signed in as a viewer: you can look at everything, but discarding, editing, replaying and ',
    'redriving need the operator role, so those buttons are disabled.');
}

// ------------------------------------------------------------------ API

export class ApiFailure extends Error {
  constructor(status, body) {
    super(body && body.reason ? `${body.reason} (HTTP ${status}${body.error ? ', ' + body.error : ''})`
      : `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

export function toLogin() {
  sessionStorage.removeItem('mailroom.csrf');
  location.href = 'login.html?next=' + encodeURIComponent(location.hash || '#/');
}

export async function api(method, path, body) {
  const headers = {'Accept': 'application/json', 'X-Mailroom-Console': '1'};
  if (method !== 'GET' && method !== 'HEAD') headers['X-CSRF-Token'] = sessionStorage.getItem('mailroom.csrf') || '';
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(API + path, {method, headers, credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body)});
  if (r.status === 401) {
    toLogin();
    throw new ApiFailure(401, {reason: 'not signed in'});
  }
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = {reason: text.slice(0, 300)}; }
  if (!r.ok) {
    if (r.status === 403 && json && json.error === 'forbidden') {
      json.reason = 'Refused: your role may not do this (the operator role is needed).';
    }
    throw new ApiFailure(r.status, json);
  }
  return json;
}

export const get = (path) => api('GET', path);
export const post = (path, body) => api('POST', path, body ?? {});

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && String(v).trim() !== '') q.set(k, String(v).trim());
  const s = q.toString();
  return s ? '?' + s : '';
}

export function errorBox(e, testid = 'error') {
  return h('p', {class: 'error', testid, role: 'alert'}, e instanceof Error ? e.message : String(e));
}



export function filterForm(fields, values, testid, onsubmit, submitLabel, extraButtons = []) {
  const form = h('form', {class: 'filters', testid},
    fields.map(([name, label, kind]) => h('div', {},
      h('label', {for: `${testid}-${name}`}, label),
      Array.isArray(kind)
        ? h('select', {id: `${testid}-${name}`, name, testid: `filter-${name}`},
          h('option', {value: ''}, 'any'), kind.map((v) => h('option', {value: v, selected: values[name] === v}, v)))
        : h('input', {id: `${testid}-${name}`, name, testid: `filter-${name}`, value: values[name] ?? ''}))),
    h('div', {class: 'buttons'}, h('button', {type: 'submit', testid: `${testid}-submit`}, submitLabel), extraButtons));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const values = {};
    for (const [name] of fields) values[name] = form.elements[name].value.trim();
    onsubmit(values);
  });
  return form;
}


/** Goes to a hash route, rendering again when it is the current one (a repeated search). */
export function go(hash) {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
}
