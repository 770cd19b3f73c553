// Mailroom console: plain ES modules, no framework, no build step. Hash routes:
//   #/                      dashboard per queue
//   #/dead-letters?...      filtered list
//   #/dead-letters/{id}     one dead letter: envelope, stack trace, attempts, timeline, payload; actions
//   #/redrives              recent redrives
//   #/redrives/new?...      plan a redrive (dry run)
//   #/redrives/{id}         review a plan, run it, watch it, read its recovery record
// Every request carries X-Mailroom-Console: 1; every write also X-CSRF-Token. A 401 goes to login.html.

const API = new URL('../api/v1', location.href).pathname;
const OPERATOR = 'mailroom-operator';
const REASONS = ['poison', 'manual_review', 'retries_exhausted', 'unmapped_error', 'handler_error',
  'redelivery_limit', 'too_large'];
const CLASSES = ['transient', 'throttled', 'ambiguous', 'soft_bounce', 'permanent_recipient', 'content_policy',
  'poison', 'internal', 'unknown', 'systemic'];
const STATUSES = ['open', 'replaying', 'replayed', 'discarded', 'expired'];
const LIST_FILTERS = [
  ['queue', 'Queue', 'text'], ['reason', 'Reason', REASONS], ['failure_class', 'Failure class', CLASSES],
  ['error_type', 'Error type', 'text'], ['status', 'Status', STATUSES], ['campaign_id', 'Campaign', 'text'],
  ['tenant', 'Tenant', 'text'], ['from', 'Failed from (ISO instant, e.g. 2026-11-29T10:00:00Z)', 'text'],
  ['to', 'Failed before (ISO instant)', 'text'],
];
const REDRIVE_FILTERS = [
  ['queue', 'Queue', 'text'], ['reason', 'Reason', REASONS], ['failure_class', 'Failure class', CLASSES],
  ['error_type', 'Error type', 'text'], ['consumer_version', 'Consumer version', 'text'],
  ['campaign_id', 'Campaign', 'text'], ['tenant', 'Tenant', 'text'], ['provider', 'Provider', 'text'],
  ['from', 'Failed from (ISO instant)', 'text'], ['to', 'Failed before (ISO instant)', 'text'],
  ['ids', 'Only these dead-letter ids (comma separated)', 'text'],
];

const state = {user: null, roles: [], pollTimer: null, routeSeq: 0};

// ------------------------------------------------------------------ DOM and formatting helpers

/** h('tag', {attr: value, onclick: fn}, child...) — children are nodes or text (never parsed as HTML). */
function h(tag, attrs = {}, ...children) {
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

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const svg = (tag, attrs = {}, ...children) => {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k === 'testid' ? 'data-testid' : k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
};

function view(...children) {
  const main = document.getElementById('view');
  main.replaceChildren();
  append(main, children);
}

/** Paints the page of route {@code seq}, unless the user has moved to another page since it started. */
function render(seq, ...children) {
  if (seq === state.routeSeq) view(...children);
}

function flash(message, isError = false) {
  const el = document.getElementById('flash');
  el.textContent = message;
  el.className = isError ? 'error' : '';
  el.hidden = !message;
}

function ageOf(iso) {
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

const when = (iso) => iso ? h('time', {datetime: iso, title: iso}, iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')) : '—';
const statusBadge = (s, testid) => h('span', {class: `status status-${s}`, testid}, s ?? '—');

function kvTable(rows, testid) {
  return h('table', {class: 'kv', testid},
    rows.map(([label, value, id]) => h('tr', {}, h('th', {}, label),
      h('td', {testid: id}, value === null || value === undefined || value === '' ? '—' : value))));
}

function table(headers, rows, testid, rowAttrs = () => ({})) {
  return h('table', {testid},
    h('thead', {}, h('tr', {}, headers.map((x) => h('th', {}, x)))),
    h('tbody', {}, rows.length
      ? rows.map((r, i) => h('tr', rowAttrs(r, i), r.cells.map((c) => h('td', {}, c ?? '—'))))
      : h('tr', {}, h('td', {colspan: headers.length, class: 'muted'}, 'Nothing here.'))));
}

function canAct() {
  return state.roles.includes(OPERATOR);
}

/** Attributes for an action button: disabled with an explanation for a viewer. */
function actionAttrs(attrs) {
  return canAct() ? attrs : {...attrs, disabled: true, title: 'Your role can only look: acting needs the operator role'};
}

function viewerNote() {
  return canAct() ? null : h('p', {class: 'hint', testid: 'viewer-note'},
    'You are signed in as a viewer: you can look at everything, but discarding, editing, replaying and ',
    'redriving need the operator role, so those buttons are disabled.');
}

// ------------------------------------------------------------------ API

class ApiFailure extends Error {
  constructor(status, body) {
    super(body && body.reason ? `${body.reason} (HTTP ${status}${body.error ? ', ' + body.error : ''})`
      : `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

function toLogin() {
  sessionStorage.removeItem('mailroom.csrf');
  location.href = 'login.html?next=' + encodeURIComponent(location.hash || '#/');
}

async function api(method, path, body) {
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

const get = (path) => api('GET', path);
const post = (path, body) => api('POST', path, body ?? {});

function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && String(v).trim() !== '') q.set(k, String(v).trim());
  const s = q.toString();
  return s ? '?' + s : '';
}

function errorBox(e, testid = 'error') {
  return h('p', {class: 'error', testid, role: 'alert'}, e instanceof Error ? e.message : String(e));
}

// ------------------------------------------------------------------ routing

/** Goes to a hash route, rendering again when it is the current one (a repeated search). */
function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

async function route() {
  // each route has its number: a page still loading when the user moves on must not paint over the next one
  const seq = ++state.routeSeq;
  if (state.pollTimer) { clearTimeout(state.pollTimer); state.pollTimer = null; }
  flash('');
  const hash = location.hash || '#/';
  const [path, qs] = hash.slice(1).split('?');
  const params = Object.fromEntries(new URLSearchParams(qs || ''));
  const parts = path.split('/').filter(Boolean);
  document.querySelectorAll('header nav a').forEach((a) => a.classList.toggle('current', a.getAttribute('href').split('?')[0] === '#' + path));
  try {
    if (parts.length === 0) return await dashboard(seq);
    if (parts[0] === 'dead-letters' && parts.length === 1) return await deadLetterList(params, seq);
    if (parts[0] === 'dead-letters' && parts.length === 2) return await deadLetterDetail(parts[1], seq);
    if (parts[0] === 'redrives' && parts.length === 1) return await redriveList(seq);
    if (parts[0] === 'redrives' && parts[1] === 'new') return await redrivePlanForm(params, seq);
    if (parts[0] === 'redrives' && parts.length === 2) return await redrivePage(parts[1], seq);
    view(h('h1', {}, 'Not found'), h('p', {}, 'No console page at ', hash, '. '), h('a', {href: '#/'}, 'Go to the dashboard'));
  } catch (e) {
    if (e.status === 401) return;
    render(seq, h('h1', {}, 'Something failed'), errorBox(e));
  }
}

// ------------------------------------------------------------------ dashboard

async function dashboard(seq) {
  render(seq, h('h1', {}, 'Dashboard'), h('p', {class: 'muted'}, 'Loading open dead letters per queue…'));
  const [queues, groups, providers] = await Promise.all([
    get('/queues').catch(() => []),
    get('/dead-letters/groups?status=open'),
    get('/providers').catch(() => []),
  ]);
  const names = new Set((queues || []).map((q) => q.queue || q.name).filter(Boolean));
  groups.forEach((g) => names.add(g.queue));
  const cards = [...names].sort().map((name) => queueCard(name, (queues || []).find((q) => (q.queue || q.name) === name),
    groups.filter((g) => g.queue === name)));
  render(seq, h('h1', {}, 'Dashboard'),
    h('p', {class: 'hint'}, 'Per send queue: how many dead letters are open, how old the oldest is, how many arrived ',
      'over time, and the failure groups behind them (same reason and error). Click a group to see its dead letters.'),
    providerPanel(providers || []),
    cards.length ? cards : h('p', {class: 'muted', testid: 'no-queues'}, 'No send queues and no dead letters yet.'));
}

// Each provider's circuit breaker: open means no call reaches it and its jobs wait on the broker.
function providerPanel(providers) {
  return h('section', {class: 'queue-card', testid: 'providers'},
    h('h2', {}, 'Providers'),
    table(['Provider', 'Kind', 'Breaker', 'Since', 'Last failure', 'Rate limit'],
      providers.map((p) => ({p, cells: [h('code', {}, p.name), p.kind,
        h('span', {class: 'breaker breaker-' + p.state, testid: 'breaker-state'}, p.state.replace('_', '-')),
        when(p.since), p.last_failure, p.rate_limit_per_second.toFixed(1) + '/s']})),
      'provider-table', (r) => ({testid: 'provider', 'data-provider': r.p.name})));
}

function queueCard(name, figures, groups) {
  const open = groups.reduce((n, g) => n + g.count, 0);
  const oldest = groups.map((g) => g.oldest).filter(Boolean).sort()[0];
  const chartBox = h('div', {testid: 'arrivals'}, h('p', {class: 'muted'}, 'Loading arrivals…'));
  const range = h('select', {testid: 'arrivals-range', 'aria-label': 'Arrival chart range',
    onchange: () => loadChart(name, range.value, chartBox)},
  h('option', {value: '1:PT1M'}, 'last hour, per minute'),
  h('option', {value: '24:PT15M', selected: true}, 'last 24 hours, per 15 minutes'),
  h('option', {value: '168:PT2H'}, 'last 7 days, per 2 hours'));
  loadChart(name, range.value, chartBox);
  const top = groups.slice(0, 5);
  return h('section', {class: 'queue-card', testid: 'queue-card', 'data-queue': name, id: 'queue-' + name},
    h('h2', {}, 'Queue ', h('code', {}, name)),
    h('div', {class: 'figures'},
      h('div', {class: 'figure'}, h('div', {class: 'value', testid: 'open-count'}, open),
        h('div', {class: 'label'}, 'open dead letters')),
      h('div', {class: 'figure'}, h('div', {class: 'value', testid: 'oldest-age'}, oldest ? ageOf(oldest) : '—'),
        h('div', {class: 'label'}, 'age of the oldest open dead letter', oldest ? h('br') : null, oldest ? when(oldest) : null)),
      figures ? h('div', {class: 'figure'}, h('div', {class: 'value'}, figures.depth ?? '—'),
        h('div', {class: 'label'}, 'messages waiting on the queue')) : null,
      figures && figures.paused !== undefined ? h('div', {class: 'figure'}, h('div', {class: 'value'}, figures.paused ? 'paused' : 'consuming'),
        h('div', {class: 'label'}, 'consumers')) : null),
    figures && figures.paused ? pausedBanner(name, figures) : null,
    h('h3', {}, 'Dead-letter arrivals ', range),
    chartBox,
    h('h3', {}, 'Top failure groups (open)'),
    table(['Dead letters', 'Reason', 'Error type', 'Error (normalised)', 'Oldest', 'Newest'],
      top.map((g) => ({g, cells: [
        h('a', {href: '#/dead-letters' + query({queue: g.queue, reason: g.reason, error_type: g.error_type, status: 'open'}),
          testid: 'group-link'}, g.count),
        g.reason, g.error_type, g.normalised_error, when(g.oldest), when(g.newest)]})),
      'failure-groups', (r) => ({testid: 'failure-group', 'data-reason': r.g.reason})),
    h('p', {}, h('a', {href: '#/dead-letters' + query({queue: name, status: 'open'}), testid: 'queue-list-link'},
      `See all open dead letters of ${name}`)));
}

/** A stopped line: why and since when, and (for an operator) the button that starts it again. */
function pausedBanner(name, figures) {
  const resume = async (e) => {
    e.target.disabled = true;
    try {
      await post(`/queues/${encodeURIComponent(name)}/resume`);
      flash(`Consumers of ${name} resumed.`);
    } catch (err) {
      flash('Resuming failed: ' + err.message, true);
    }
    route();
  };
  return h('div', {class: 'paused-banner', testid: 'paused-banner', 'data-reason': figures.paused_reason || ''},
    h('span', {class: 'status status-paused', testid: 'paused-badge'}, 'paused: ' + (figures.paused_reason || 'by hand')),
    ' since ', figures.paused_since ? when(figures.paused_since) : '—',
    figures.paused_detail ? h('div', {class: 'hint', testid: 'paused-detail'}, figures.paused_detail) : null,
    h('p', {class: 'hint'}, 'Its jobs wait on the broker: nothing is dead-lettered and no retry is used. ',
      'A probe starts it again when the cause is gone; resume by hand once you have fixed it.'),
    h('button', actionAttrs({type: 'button', testid: 'queue-resume-button', onclick: resume}), `Resume ${name}`));
}

async function loadChart(queue, range, box) {
  const [hours, bucket] = range.split(':');
  try {
    const buckets = await get('/dead-letters/arrivals' + query({queue, bucket, hours}));
    box.replaceChildren(arrivalsChart(buckets, bucket));
  } catch (e) {
    box.replaceChildren(errorBox(e, 'arrivals-error'));
  }
}

function arrivalsChart(buckets, bucket) {
  const W = 800, H = 160, pad = 24;
  const max = Math.max(1, ...buckets.map((b) => b.count));
  const total = buckets.reduce((n, b) => n + b.count, 0);
  const bw = (W - pad * 2) / Math.max(1, buckets.length);
  const chart = svg('svg', {class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', testid: 'arrivals-chart',
    'data-total': total, 'aria-label': `Dead-letter arrivals per ${bucket}: ${total} in total, at most ${max} in one bucket`});
  chart.append(svg('text', {x: 2, y: 12}, `${max} per ${bucket.replace('PT', '').toLowerCase()}`));
  chart.append(svg('line', {x1: pad, y1: H - pad, x2: W - pad, y2: H - pad, stroke: '#b8c0cc'}));
  buckets.forEach((b, i) => {
    if (!b.count) return;
    const bh = (H - pad * 2) * b.count / max;
    chart.append(svg('rect', {class: 'bar', x: pad + i * bw, y: H - pad - bh, width: Math.max(1, bw - 1), height: bh,
      'data-start': b.start, 'data-count': b.count}, svg('title', {}, `${b.start}: ${b.count} dead letters`)));
  });
  if (buckets.length) {
    chart.append(svg('text', {x: pad, y: H - 6}, buckets[0].start.replace('T', ' ').slice(0, 16)));
    chart.append(svg('text', {x: W - pad, y: H - 6, 'text-anchor': 'end'}, 'now'));
  }
  return h('div', {}, chart, h('p', {class: 'muted', testid: 'arrivals-total'}, `${total} dead letters arrived in this window.`));
}

// ------------------------------------------------------------------ list

function filterForm(fields, values, testid, onsubmit, submitLabel, extraButtons = []) {
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

async function deadLetterList(params, seq) {
  const offset = Number(params.offset || 0);
  const filters = Object.fromEntries(LIST_FILTERS.map(([n]) => [n, params[n]]));
  const form = filterForm(LIST_FILTERS, filters, 'dl-filter',
    (v) => go('#/dead-letters' + query(v)), 'Show dead letters',
    [h('a', {href: '#/dead-letters', class: 'muted'}, 'Clear filters')]);
  render(seq, h('h1', {}, 'Dead letters'), form, h('p', {class: 'muted'}, 'Loading…'));
  const page = await get('/dead-letters' + query({...filters, offset, limit: 50}));
  const rows = page.items.map((d) => ({d, cells: [
    h('a', {href: '#/dead-letters/' + d.id, testid: 'dl-link'}, '#' + d.id),
    statusBadge(d.status), d.source_queue, d.reason, d.failure_class, h('code', {}, d.message_id),
    d.error_type, d.campaign_id, d.tenant, d.attempt_count, when(d.failed_at)]}));
  const redriveQuery = {...filters};
  delete redriveQuery.status;
  render(seq, h('h1', {}, 'Dead letters'),
    h('p', {class: 'hint'}, 'Newest first. Filter, then open one to see everything about it and act on it.'),
    form,
    h('p', {testid: 'dl-count'}, `${page.items.length} shown${page.next !== null && page.next !== undefined ? ' (more on the next page)' : ''}, from #${offset + 1}.`),
    table(['Id', 'Status', 'Queue', 'Reason', 'Class', 'Message id', 'Error type', 'Campaign', 'Tenant', 'Attempts', 'Failed at'],
      rows, 'dl-table', (r) => ({testid: 'dl-row', 'data-id': r.d.id, 'data-status': r.d.status, 'data-reason': r.d.reason, 'data-message-id': r.d.message_id})),
    h('div', {class: 'pager'},
      offset > 0 ? h('a', {href: '#/dead-letters' + query({...filters, offset: Math.max(0, offset - 50)})}, '← Previous page') : null,
      page.next !== null && page.next !== undefined ? h('a', {href: '#/dead-letters' + query({...filters, offset: page.next}), testid: 'next-page'}, 'Next page →') : null,
      h('a', {href: '#/redrives/new' + query(redriveQuery), testid: 'plan-from-filter'}, 'Plan a redrive of the open ones matching this filter')));
}

// ------------------------------------------------------------------ detail

function decodePayload(b64) {
  if (b64 === null || b64 === undefined) return null;
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

function hexDump(bytes) {
  const lines = [];
  for (let off = 0; off < bytes.length; off += 16) {
    const chunk = bytes.slice(off, off + 16);
    const hex = [...chunk].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...chunk].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${off.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  |${ascii}|`);
  }
  return lines.join('\n');
}

async function deadLetterDetail(id, seq) {
  render(seq, h('h1', {}, `Dead letter #${id}`), h('p', {class: 'muted'}, 'Loading…'));
  // an operator acts on the payload (edit, replay), so the console asks for it unredacted: the server records
  // that reveal in the dead letter's history; a viewer gets the fields of mailroom.redact.fields as [redacted]
  const reveal = canAct() ? '?reveal=true' : '';
  const d = await get('/dead-letters/' + encodeURIComponent(id) + reveal);
  const bytes = decodePayload(d.payload_base64);
  const [job, revisions] = await Promise.all([
    d.message_id ? get('/jobs/' + encodeURIComponent(d.message_id) + query({queue: d.source_queue})).catch((e) => e) : null,
    get(`/dead-letters/${d.id}/revisions${reveal}`).catch((e) => e),
  ]);
  const attempts = Array.isArray(d.attempts) ? d.attempts : [];
  const attemptKeys = [...new Set(attempts.flatMap((a) => Object.keys(a)))];

  render(seq,
    h('p', {}, h('a', {href: '#/dead-letters' + query({queue: d.source_queue, status: 'open'})}, `← Open dead letters of ${d.source_queue}`)),
    h('h1', {}, `Dead letter #${d.id} `, statusBadge(d.status, 'dl-status')),
    h('section', {class: 'card'}, h('h2', {}, 'Envelope'), kvTable([
      ['Status', statusBadge(d.status), 'env-status'], ['Reason', d.reason, 'env-reason'],
      ['Failure class', d.failure_class, 'env-failure-class'], ['Queue', d.source_queue, 'env-queue'],
      ['Message id', d.message_id, 'env-message-id'], ['Idempotency key', d.idempotency_key, 'env-idempotency-key'],
      ['Error type', d.error_type, 'env-error-type'], ['Error', d.error, 'env-error'],
      ['Routed by', d.routed_by], ['Consumer', d.consumer], ['Consumer version', d.consumer_version],
      ['Campaign', d.campaign_id], ['Tenant', d.tenant], ['Provider', d.provider], ['Trace id', d.trace_id],
      ['Attempts', d.attempt_count], ['Lap (times dead-lettered)', d.lap],
      ['Previous dead letter', d.previous_dead_letter_id ? h('a', {href: '#/dead-letters/' + d.previous_dead_letter_id}, '#' + d.previous_dead_letter_id) : null],
      ['First seen', when(d.first_seen_at)], ['Failed at', when(d.failed_at)], ['Expires (validity window)', when(d.expires_at)],
      ['Retention until', when(d.retention_until)], ['Job id', d.job_id], ['JMS message id', d.jms_message_id],
      ['Payload', `${d.payload_size} bytes${d.payload_truncated ? ' (stored truncated)' : ''}, sha256 ${d.payload_sha256 ?? '—'}`],
      ['Last redrive', d.redrive_id ? h('a', {href: '#/redrives/' + d.redrive_id}, d.redrive_id) : null],
      ['Revisions (edits)', Array.isArray(revisions) ? revisions.length : (d.revisions ?? '—')],
    ], 'envelope')),
    h('section', {class: 'card'}, h('h2', {}, 'Actions'), viewerNote(), actions(d, bytes, Array.isArray(revisions) ? revisions : []),
      h('p', {id: 'action-result', testid: 'action-result', role: 'status'})),
    h('section', {class: 'card'}, h('h2', {}, 'Payload'),
      bytes === null ? h('p', {class: 'muted', testid: 'payload-gone'}, 'The payload is gone (retention expired it); the envelope is kept.') : [
        h('h3', {}, 'As text (UTF-8, exactly as stored)'), h('pre', {class: 'wrap', testid: 'payload-text', id: 'payload-text'}, new TextDecoder('utf-8', {fatal: false}).decode(bytes)),
        h('h3', {}, 'As hex'), h('pre', {testid: 'payload-hex', id: 'payload-hex'}, hexDump(bytes))]),
    h('section', {class: 'card'}, h('h2', {}, 'Stack trace'),
      d.stacktrace ? h('pre', {testid: 'stacktrace'}, d.stacktrace) : h('p', {class: 'muted', testid: 'stacktrace'}, 'No stack trace: no exception was thrown in our code for this one.')),
    h('section', {class: 'card'}, h('h2', {}, `Attempts (${attempts.length})`),
      table(attemptKeys, attempts.map((a) => ({cells: attemptKeys.map((k) => typeof a[k] === 'object' && a[k] !== null ? JSON.stringify(a[k]) : a[k])})), 'attempts')),
    h('section', {class: 'card'}, h('h2', {}, 'Job timeline'),
      job instanceof Error ? h('p', {class: 'muted', testid: 'timeline'}, job.status === 404 ? 'No job was recorded for this message (e.g. a payload that never parsed).' : job.message)
        : job ? [h('p', {}, 'Job state: ', statusBadge(job.state, 'job-state')),
          table(['At', 'Event', 'Detail', 'By'], (job.timeline || []).map((e) => ({cells: [when(e.at), e.type, e.detail, e.actor]})), 'timeline')]
          : h('p', {class: 'muted', testid: 'timeline'}, 'No message id, so no job.')),
    h('section', {class: 'card'}, h('h2', {}, 'Status history'),
      table(['At', 'From', 'To', 'By', 'Why'], (d.history || []).map((c) => ({cells: [when(c.at), c.from_status, c.to_status, c.actor, c.reason]})), 'history')),
    Array.isArray(revisions) && revisions.length ? h('section', {class: 'card'}, h('h2', {}, 'Revisions'),
      table(['Revision', 'By', 'At', 'Why', 'Idempotency key', 'Diff'], revisions.map((r) => ({cells: [r.revision, r.created_by, when(r.created_at), r.reason, r.idempotency_key, h('pre', {class: 'wrap'}, r.diff ?? '')]})), 'revisions')) : null,
  );
}

function actions(d, bytes, revisions) {
  const latest = revisions.length ? revisions[revisions.length - 1] : null;
  const open = d.status === 'open';
  const result = () => document.getElementById('action-result');
  const note = open ? null : h('p', {class: 'hint', testid: 'not-open-note'}, `This dead letter is ${d.status}: only open ones can be discarded, edited or replayed.`);
  const disabled = (attrs) => actionAttrs(open ? attrs : {...attrs, disabled: true});

  const discardReason = h('textarea', {id: 'discard-reason', testid: 'discard-reason', rows: 2, required: true, placeholder: 'e.g. customer asked us not to send it'});
  const discard = h('form', {testid: 'discard-form'},
    h('h3', {}, 'Discard'), h('p', {class: 'hint'}, 'Resolve it without sending. Recorded with you and your reason.'),
    h('label', {for: 'discard-reason'}, 'Why (required)'), discardReason,
    h('button', disabled({type: 'submit', class: 'danger', testid: 'discard-button', id: 'discard-button'}), 'Discard this dead letter'));
  discard.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!discardReason.value.trim()) { result().textContent = 'A discard needs a reason.'; result().className = 'error'; return; }
    try {
      await post(`/dead-letters/${d.id}/discard`, {reason: discardReason.value.trim()});
      await deadLetterDetail(d.id, state.routeSeq);
      flash(`Dead letter #${d.id} discarded.`);
    } catch (err) { result().textContent = 'Discard refused: ' + err.message; result().className = 'error'; }
  });

  const current = latest && typeof latest.payload === 'string' ? latest.payload : (bytes ? new TextDecoder('utf-8', {fatal: false}).decode(bytes) : '');
  let pretty = current;
  try { pretty = JSON.stringify(JSON.parse(current), null, 2); } catch { /* not JSON: edit it as it is */ }
  const payload = h('textarea', {id: 'edit-payload', testid: 'edit-payload', rows: 12}, pretty);
  const editReason = h('input', {id: 'edit-reason', testid: 'edit-reason', placeholder: 'e.g. fixed the recipient address'});
  const newKey = h('input', {type: 'checkbox', id: 'edit-new-key', testid: 'edit-new-key'});
  const editErrors = h('pre', {class: 'wrap error', testid: 'edit-errors', hidden: true});
  const edit = h('form', {testid: 'edit-form'},
    h('h3', {}, 'Edit the payload'), h('p', {class: 'hint'}, 'Saves a revision (the original is kept); a replay then sends the latest revision.',
      latest ? ` Shown: revision ${latest.revision}.` : ' Shown: the original.'),
    h('label', {for: 'edit-payload'}, 'Job JSON'), payload,
    h('label', {for: 'edit-reason'}, 'Why (required)'), editReason,
    h('label', {for: 'edit-new-key'}, newKey, ' Give it a new idempotency key (only if the old one must not block the send: it may send twice)'),
    editErrors,
    h('button', disabled({type: 'submit', testid: 'edit-button'}), 'Save revision'));
  edit.addEventListener('submit', async (e) => {
    e.preventDefault();
    editErrors.hidden = true;
    try {
      const r = await post(`/dead-letters/${d.id}/revisions`, {payload: payload.value, reason: editReason.value.trim(), new_idempotency_key: newKey.checked});
      await deadLetterDetail(d.id, state.routeSeq);
      flash(`Revision ${r.revision} saved${r.idempotency_key ? ', idempotency key ' + r.idempotency_key : ''}. Replay to send it.`);
    } catch (err) {
      editErrors.textContent = (err.status === 400 ? 'The payload was refused: ' : 'Saving failed: ') + err.message;
      editErrors.hidden = false;
    }
  });

  const replayReason = h('input', {id: 'replay-reason', testid: 'replay-reason', placeholder: 'e.g. provider fixed, send again'});
  const replay = h('form', {testid: 'replay-form'},
    h('h3', {}, 'Replay'), h('p', {class: 'hint'}, 'Puts it back on its queue with the same idempotency key (a key already sent is never sent again).'),
    h('label', {for: 'replay-reason'}, 'Why'), replayReason,
    h('button', disabled({type: 'submit', testid: 'replay-button'}), 'Replay this dead letter'));
  replay.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const r = await post(`/dead-letters/${d.id}/replay`, {reason: replayReason.value.trim()});
      location.hash = '#/redrives/' + r.id;
    } catch (err) { result().textContent = 'Replay refused: ' + err.message; result().className = 'error'; }
  });
  return h('div', {}, note, h('div', {class: 'actions'}, discard, edit, replay));
}

// ------------------------------------------------------------------ redrives

async function redriveList(seq) {
  render(seq, h('h1', {}, 'Redrives'), h('p', {class: 'muted'}, 'Loading…'));
  const records = await get('/redrives?limit=50');
  render(seq, h('h1', {}, 'Redrives'),
    h('p', {class: 'hint'}, 'Every planned and run redrive with its recovery record, newest first. ',
      h('a', {href: '#/redrives/new', testid: 'new-redrive-link'}, 'Plan a new redrive')),
    table(['Id', 'Action', 'Status', 'Entries', 'Outcomes', 'Planned by', 'Planned at', 'Finished'],
      records.map((r) => ({r, cells: [h('a', {href: '#/redrives/' + r.id, testid: 'redrive-link'}, r.id), r.action, statusBadge(r.status),
        r.cohort ? r.cohort.count : '—', outcomesText(r.outcomes), r.created_by, when(r.created_at), when(r.finished_at)]})),
      'redrive-table', (x) => ({testid: 'redrive-row', 'data-id': x.r.id})));
}

function outcomesText(outcomes) {
  return outcomes && Object.keys(outcomes).length ? Object.entries(outcomes).map(([k, v]) => `${k}: ${v}`).join(', ') : '—';
}

async function redrivePlanForm(params, seq) {
  const values = {...params};
  const action = h('select', {id: 'redrive-action', testid: 'redrive-action', name: 'action'},
    h('option', {value: 'replay'}, 'replay (send them again)'), h('option', {value: 'discard'}, 'discard (resolve without sending)'));
  const opt = (name, label, placeholder) => h('div', {}, h('label', {for: 'opt-' + name}, label),
    h('input', {id: 'opt-' + name, name, testid: 'opt-' + name, placeholder}));
  const reason = h('input', {id: 'redrive-reason', testid: 'redrive-reason', placeholder: 'why (required for a discard)'});
  const out = h('div', {testid: 'plan-result'});
  const skipSample = h('input', {type: 'checkbox', id: 'opt-skip_sample', testid: 'opt-skip_sample'});
  const form = filterForm(REDRIVE_FILTERS, values, 'redrive-filter', async (v) => {
    const filter = {};
    for (const [k, val] of Object.entries(v)) {
      if (!val) continue;
      filter[k] = k === 'ids' ? val.split(/[\s,]+/).filter(Boolean).map(Number) : val;
    }
    const body = {action: action.value, filter, reason: reason.value.trim() || undefined};
    for (const [k, conv] of [['sample_size', Number], ['sample_rate_per_second', Number], ['rate_per_second', Number], ['sample_timeout', String]]) {
      const el = document.getElementById('opt-' + k);
      if (el && el.value.trim()) body[k] = conv(el.value.trim());
    }
    if (skipSample.checked) body.skip_sample = true;
    try {
      const record = await post('/redrives', body);
      location.hash = '#/redrives/' + record.id;
    } catch (e) { out.replaceChildren(errorBox(e, 'plan-error')); }
  }, 'Plan (dry run: nothing changes yet)', []);
  form.insertBefore(h('div', {}, h('label', {for: 'redrive-action'}, 'Action'), action), form.firstChild);
  form.insertBefore(h('div', {}, h('label', {for: 'redrive-reason'}, 'Why'), reason), form.lastChild);
  for (const o of [['sample_size', 'Sample size (first entries, alone)', 'default'],
    ['sample_rate_per_second', 'Sample rate per second', 'default'], ['rate_per_second', 'Rate per second after the sample', 'default'],
    ['sample_timeout', 'How long to wait for the sample (ISO duration)', 'e.g. PT2M']]) form.insertBefore(opt(...o), form.lastChild);
  form.insertBefore(h('div', {}, h('label', {for: 'opt-skip_sample'}, 'Replay without a sample (nothing stops it early)'),
    skipSample), form.lastChild);
  if (!canAct()) form.querySelector('button[type=submit]').disabled = true;
  render(seq, h('h1', {}, 'Plan a redrive'),
    h('p', {class: 'hint'}, 'Choose which open dead letters to replay or discard. Planning is a dry run: you review the ',
      'exact cohort first, then run it. A run sends a small sample first and stops if the sample dead-letters again.'),
    viewerNote(), form, out);
}

async function redrivePage(id, seq) {
  render(seq, h('h1', {}, `Redrive ${id}`), h('p', {class: 'muted'}, 'Loading…'));
  const record = await get('/redrives/' + encodeURIComponent(id));
  renderRedrive(record, seq);
}

function renderRedrive(r, seq) {
  const entries = r.entries || [];
  const done = entries.filter((e) => e.outcome && e.outcome !== 'pending').length;
  const total = r.cohort ? r.cohort.count : entries.length;
  const settled = entries.filter((e) => e.outcome && !['pending', 'published'].includes(e.outcome)).length;
  const result = h('p', {testid: 'redrive-action-result', role: 'status'});
  const act = async (label, fn) => {
    try { renderRedrive(await fn(), seq); } catch (e) { result.replaceChildren(errorBox(e, 'redrive-error')); }
  };
  const breakdown = (title, map, testid) => h('div', {}, h('h3', {}, title),
    table(['', 'Dead letters'], Object.entries(map || {}).map(([k, v]) => ({k, cells: [k, v]})), testid,
      (x) => ({'data-key': x.k})));
  const f = r.filter || {};
  const filterText = Object.entries(f).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && !v.length))
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : v}`).join(', ') || 'all open dead letters';

  const parts = [
    h('p', {}, h('a', {href: '#/redrives'}, '← All redrives')),
    h('h1', {}, `Redrive ${r.id}: ${r.action} `, statusBadge(r.status, 'redrive-status')),
    kvTable([['Action', r.action, 'redrive-action-value'], ['Filter', filterText, 'redrive-filter-text'], ['Why', r.reason],
      ['Planned by', r.created_by], ['Planned at', when(r.created_at)], ['Started by', r.started_by], ['Started at', when(r.started_at)],
      ['Finished at', when(r.finished_at)], ['Stop reason', r.stop_reason, 'redrive-stop-reason'],
      ['Options', r.options ? (r.options.skip_sample ? 'no sample (skip_sample), ' : '') + `sample ${r.options.sample_size} at ${r.options.sample_rate_per_second}/s, then ${r.options.rate_per_second}/s, sample timeout ${r.options.sample_timeout}` : null]], 'redrive-summary'),
  ];
  if (r.status === 'planned') {
    parts.push(h('section', {class: 'card', testid: 'review'}, h('h2', {}, 'Review the plan (dry run: nothing has changed yet)'),
      h('p', {}, h('strong', {testid: 'cohort-count'}, total), ` open dead letter${total === 1 ? '' : 's'} would be ${r.action === 'discard' ? 'discarded' : 'replayed'}.`),
      h('div', {class: 'actions'}, breakdown('By reason', r.cohort && r.cohort.by_reason, 'by-reason'),
        breakdown('By queue', r.cohort && r.cohort.by_queue, 'by-queue'),
        breakdown('Matched but left out, by why', r.cohort && r.cohort.excluded, 'excluded')),
      h('h3', {}, 'First entries'), entryTable(entries.slice(0, 20), 'review-entries'),
      viewerNote(),
      h('p', {}, h('button', actionAttrs({type: 'button', testid: 'run-button', id: 'run-button',
        onclick: (e) => { e.target.disabled = true; act('run', () => post(`/redrives/${r.id}/run`)); }}), `Run: ${r.action} these ${total}`), ' ',
      h('button', actionAttrs({type: 'button', class: 'secondary', testid: 'abandon-button',
        onclick: () => act('abandon', () => post(`/redrives/${r.id}/abandon`, {reason: prompt('Why abandon this plan?') || 'abandoned from the console'}))}), 'Abandon the plan')),
      result));
  } else {
    parts.push(h('section', {class: 'card', testid: 'progress'}, h('h2', {}, r.status === 'running' ? 'Running (updates every second)' : 'Progress'),
      h('div', {class: 'progress', title: `${done} of ${total}`}, h('div', {style: `width: ${total ? Math.round(100 * done / total) : 100}%`})),
      h('p', {testid: 'redrive-progress'}, `${done} of ${total} entries reached, ${settled} settled.`),
      h('p', {testid: 'redrive-phase'}, 'Phase: ', h('strong', {}, currentPhase(r)),
        ` — ${entries.filter((e) => e.published_at).length} of ${total} published back onto their queue${r.status === 'running' ? ' so far' : ''}.`),
      h('h3', {}, 'Outcomes'), table(['Outcome', 'Entries'], Object.entries(r.outcomes || {}).map(([k, v]) => ({k, cells: [statusBadge(k), v]})), 'outcomes', (x) => ({'data-outcome': x.k})),
      h('h3', {}, 'Phases'), table(['Phase', 'Started', 'Finished', 'Entries', 'Result'], (r.phases || []).map((p) => ({cells: [p.name, when(p.started_at), when(p.finished_at), p.entries, p.result]})), 'phases'),
      ['interrupted', 'stopped'].includes(r.status) ? h('p', {}, viewerNote(),
        h('button', actionAttrs({type: 'button', testid: 'resume-button', onclick: () => act('resume', () => post(`/redrives/${r.id}/resume`))}), 'Resume the run'), ' ',
        h('button', actionAttrs({type: 'button', class: 'secondary', testid: 'abandon-button',
          onclick: () => act('abandon', () => post(`/redrives/${r.id}/abandon`, {reason: prompt('Why abandon this run?') || 'abandoned from the console'}))}), 'Abandon (the rest stays open)')) : null,
      result));
    parts.push(h('section', {class: 'card', testid: 'recovery-record'}, h('h2', {}, r.status === 'running' ? 'Entries so far' : 'Recovery record: per entry'),
      entryTable(entries, 'record-entries')));
  }
  render(seq, parts);
  // live progress: poll while it runs, and until every replayed entry's send has settled
  const live = r.status === 'running' || (r.status === 'completed' && entries.some((e) => e.outcome === 'published'));
  if (live && location.hash === '#/redrives/' + r.id) {
    state.pollTimer = setTimeout(async () => {
      state.pollTimer = null;
      if (location.hash !== '#/redrives/' + r.id) return;
      try { renderRedrive(await get('/redrives/' + encodeURIComponent(r.id)), seq); } catch (e) { flash('Refreshing failed: ' + e.message, true); }
    }, 1000);
  }
}

function currentPhase(r) {
  const phases = r.phases || [];
  const open = phases.find((p) => !p.finished_at);
  if (open) return open.name;
  if (r.status === 'running') return phases.length ? `between phases (last: ${phases[phases.length - 1].name})` : 'starting';
  return phases.length ? `${r.status} after ${phases[phases.length - 1].name}` : r.status;
}

function entryTable(entries, testid) {
  return table(['Dead letter', 'Message id', 'Queue', 'Reason', 'Lap', 'Phase', 'Outcome', 'Published', 'Revision', 'Detail'],
    entries.map((e) => ({e, cells: [h('a', {href: '#/dead-letters/' + e.dead_letter_id}, '#' + e.dead_letter_id), h('code', {}, e.message_id),
      e.queue, e.reason, e.lap, e.phase, statusBadge(e.outcome, 'entry-outcome'), when(e.published_at), e.revision, e.detail]})),
    testid, (x) => ({testid: 'entry-row', 'data-dead-letter-id': x.e.dead_letter_id, 'data-outcome': x.e.outcome}));
}

// ------------------------------------------------------------------ start

async function start() {
  document.getElementById('logout').addEventListener('click', async () => {
    try { await api('DELETE', '/session'); } catch { /* gone already */ }
    sessionStorage.removeItem('mailroom.csrf');
    location.href = 'login.html';
  });
  try {
    const s = await get('/session');
    state.user = s.username;
    state.roles = s.roles || [];
    if (s.csrf_token) sessionStorage.setItem('mailroom.csrf', s.csrf_token);
    document.getElementById('whoami').textContent = `${s.username} (${canAct() ? 'operator' : 'viewer'})`;
    document.body.dataset.role = canAct() ? 'operator' : 'viewer';
  } catch (e) {
    if (e.status === 401) return;
    flash('Could not read your session: ' + e.message, true);
  }
  window.addEventListener('hashchange', route);
  route();
}

start();
