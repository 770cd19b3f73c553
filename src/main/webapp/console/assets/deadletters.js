import {jobLink} from './jobs.js';
import {FILTER_FIELDS, REDRIVE_FILTERS, state, h, append, render, flash, when, statusBadge, kvTable, table, canAct, actionAttrs, viewerNote, get, post, query, errorBox, go, columnName, attemptCell} from './core.js';

// The list's filters: the dead-letter filter's fields; a 'datetime' is a typed instant or local time, a picker and
// presets.
const LIST_FIELDS = FILTER_FIELDS;
const PAGE = 50;
// most dead letters "select all matching" puts into one plan (the newest ones)
const PLAN_MAX = 10000;
const LAST_LIST = 'mailroom.lastList';

/** The hash of the list the user last looked at (its filter and page), for "back to the list". */
export function lastListHash() {
  return sessionStorage.getItem(LAST_LIST) || '#/dead-letters?status=open';
}

let known = null;
/** Queues and error types the server knows (once per page load; a failure leaves them free text). */
async function knownValues() {
  if (!known) {
    known = Promise.all([get('/queues').catch(() => []), get('/dead-letters/groups?status=open').catch(() => [])])
      .then(([queues, groups]) => ({
        queues: [...new Set((Array.isArray(queues) ? queues : []).map((q) => q.queue))].sort(),
        error_types: [...new Set(groups.map((g) => g.error_type).filter(Boolean))].sort(),
      }));
  }
  return known;
}

/**
 * A typed time as the instant the API takes: an ISO instant passes as it is; "2026-11-30 23:00" (no zone) is a
 * local time of this browser; anything else passes as typed, so the API says what is wrong with it.
 */
export function toInstant(text) {
  const t = (text || '').trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(t);
  if (!m) return t;
  const [y, mo, d, hh, mi, ss] = m.slice(1).map(Number);
  const local = new Date(y, mo - 1, d, hh, mi, ss || 0);
  const same = local.getFullYear() === y && local.getMonth() === mo - 1 && local.getDate() === d
    && local.getHours() === hh && local.getMinutes() === mi;
  return same ? local.toISOString().replace('.000Z', 'Z') : t;
}

/** The field a 400 of the list is about: the API names the parameter first ("from is not an ISO-8601 instant…"). */
export function fieldOfError(e, names) {
  if (!e || e.status !== 400 || !e.body) return null;
  const byError = (e.body.error || '').replace(/^invalid_/, '');
  if (names.includes(byError)) return byError;
  const first = /^([a-z_]+)\b/.exec(e.body.reason || '');
  return first && names.includes(first[1]) ? first[1] : null;
}

function listForm(values, knownVals, fieldErrors) {
  const names = LIST_FIELDS.map(([n]) => n);
  const control = (name, kind) => {
    const id = `dl-filter-${name}`;
    const options = Array.isArray(kind) ? kind : knownVals[kind];
    if (options) {
      const current = values[name];
      const all = current && !options.includes(current) ? [...options, current] : options;
      return h('select', {id, name, testid: `filter-${name}`},
        h('option', {value: ''}, 'any'), all.map((v) => h('option', {value: v, selected: current === v}, v)));
    }
    if (kind === 'datetime') {
      const input = h('input', {id, name, testid: `filter-${name}`, value: values[name] ?? '',
        placeholder: 'e.g. 2026-11-30 23:00 (your time) or …T22:00:00Z'});
      const picker = h('input', {type: 'datetime-local', testid: `picker-${name}`, 'aria-label': `${name}: pick a date and time`,
        onchange: (e) => { input.value = e.target.value.replace('T', ' '); }});
      return h('div', {class: 'datetime'}, input, picker);
    }
    return h('input', {id, name, testid: `filter-${name}`, value: values[name] ?? ''});
  };
  const form = h('form', {class: 'filters', testid: 'dl-filter'},
    LIST_FIELDS.map(([name, label, kind]) => h('div', {class: fieldErrors[name] ? 'field invalid' : 'field'},
      h('label', {for: `dl-filter-${name}`}, label), control(name, kind),
      fieldErrors[name] ? h('p', {class: 'error field-error', testid: `field-error-${name}`, role: 'alert'}, fieldErrors[name]) : null)),
    h('div', {class: 'buttons'},
      h('button', {type: 'submit', testid: 'dl-filter-submit'}, 'Show dead letters'),
      h('span', {class: 'presets'}, 'Failed in the last: ',
        [['1h', 'hour', 3600], ['24h', '24 h', 86400], ['7d', '7 days', 7 * 86400]].map(([key, label, seconds]) =>
          h('button', {type: 'button', class: 'secondary', testid: `preset-${key}`, onclick: () => {
            form.elements.from.value = new Date(Date.now() - seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
            form.elements.to.value = '';
            form.requestSubmit();
          }}, label))),
      h('a', {href: '#/dead-letters', class: 'muted'}, 'Clear filters')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = {};
    for (const name of names) {
      const raw = form.elements[name].value;
      v[name] = LIST_FIELDS.find(([n]) => n === name)[2] === 'datetime' ? toInstant(raw) : (name === 'fingerprint' ? raw : raw.trim());
    }
    go('#/dead-letters' + query(v));
  });
  return form;
}

// The selection survives paging within one filter; another filter starts afresh.
const selection = {key: null, ids: new Set(), allMatching: false};

export async function deadLetterList(params, seq) {
  const offset = Number(params.offset || 0);
  const filters = Object.fromEntries(LIST_FIELDS.map(([n]) => [n, params[n]]));
  const key = query(filters);
  if (selection.key !== key) Object.assign(selection, {key, ids: new Set(), allMatching: false});
  sessionStorage.setItem(LAST_LIST, location.hash || '#/dead-letters');
  // the known values and the page are read together; one form serves the loading and the loaded page, so what
  // the user types meanwhile stays
  const pageRead = get('/dead-letters' + query({...filters, offset, limit: PAGE}));
  pageRead.catch(() => {});
  const knownVals = await knownValues();
  const form = listForm(filters, knownVals, {});
  render(seq, h('h1', {}, 'Dead letters'), form, h('p', {class: 'muted'}, 'Loading…'));
  let page;
  try {
    page = await pageRead;
  } catch (e) {
    const field = fieldOfError(e, LIST_FIELDS.map(([n]) => n));
    if (e.status === 401) throw e;
    render(seq, h('h1', {}, 'Dead letters'),
      listForm(filters, knownVals, field ? {[field]: e.body.reason} : {}),
      field ? null : errorBox(e, 'dl-error'));
    return;
  }
  const shortError = (d) => d.error ? (d.error.length > 90 ? d.error.slice(0, 88) + '…' : d.error) : '—';
  const bulkCount = h('strong', {testid: 'bulk-count'});
  const bulkBar = h('div', {class: 'bulk-bar', testid: 'bulk-bar'});
  // total_exact false: the server counted up to page.total and stopped (a lower bound), so say "N+" and never
  // present it as the exact number
  const totalText = page.total_exact === false ? `${page.total}+` : String(page.total);
  const refreshBulk = () => {
    const n = selection.allMatching ? page.total : selection.ids.size;
    bulkCount.textContent = selection.allMatching
      ? (page.total_exact === false ? `all ${totalText} matching the filter (a plan takes the newest ${PLAN_MAX})` : `all ${n} matching the filter`)
      : `${n} selected`;
    bulkBar.hidden = n === 0;
  };
  const rows = page.items.map((d) => ({d, cells: [
    h('input', {type: 'checkbox', testid: 'dl-select', value: d.id, 'aria-label': `select #${d.id}`,
      checked: selection.allMatching || selection.ids.has(d.id), disabled: selection.allMatching,
      onchange: (e) => { if (e.target.checked) selection.ids.add(d.id); else selection.ids.delete(d.id); refreshBulk(); }}),
    h('a', {href: '#/dead-letters/' + d.id, testid: 'dl-link'}, '#' + d.id),
    d.next_dead_letter_id ? failedAgainBadge(d.next_dead_letter_id) : statusBadge(d.status),
    d.source_queue, d.reason, d.failure_class,
    h('span', {title: d.error || '', testid: 'dl-error-short'}, shortError(d)),
    h('span', {testid: 'dl-recipient'}, d.recipient ?? '—'), h('span', {testid: 'dl-subject'}, d.subject ?? '—'),
    d.campaign_id, d.tenant, d.attempt_count, when(d.failed_at)]}));
  const selectPage = h('input', {type: 'checkbox', testid: 'dl-select-page', 'aria-label': 'select this page',
    onchange: (e) => {
      document.querySelectorAll('[data-testid=dl-select]').forEach((c) => {
        c.checked = e.target.checked;
        if (e.target.checked) selection.ids.add(Number(c.value)); else selection.ids.delete(Number(c.value));
      });
      refreshBulk();
    }});
  const planSelected = async (action) => {
    let ids = [...selection.ids];
    if (selection.allMatching) {
      ids = [];
      // keyset pages (next_cursor): each costs what the first costs, however deep
      for (let after = ''; after !== null && after !== undefined && ids.length < PLAN_MAX;) {
        const p = await get('/dead-letters' + query({...filters, after, limit: 1000}));
        ids.push(...p.items.map((d) => d.id));
        after = p.next_cursor;
      }
    }
    go('#/redrives/new' + query({action, ids: ids.join(',')}));
  };
  append(bulkBar, [bulkCount, ' ',
    h('button', {type: 'button', testid: 'bulk-replay', onclick: () => planSelected('replay')}, 'Plan a replay of them'), ' ',
    h('button', {type: 'button', class: 'secondary', testid: 'bulk-discard', onclick: () => planSelected('discard')}, 'Plan a discard of them'), ' ',
    h('button', {type: 'button', class: 'link', testid: 'bulk-clear', onclick: () => {
      selection.ids.clear(); selection.allMatching = false; go(location.hash);
    }}, 'Clear the selection'),
    h('span', {class: 'hint'}, ' Planning is a dry run: you review the exact cohort before anything happens.')]);
  const shownTo = offset + page.items.length;
  render(seq, h('h1', {}, 'Dead letters'),
    h('p', {class: 'hint'}, 'Newest first. Filter, then open one to see everything about it and act on it, or select some to plan a replay or discard.'),
    form,
    h('p', {testid: 'dl-count'}, h('strong', {testid: 'dl-total', title: page.total_exact === false
        ? `more than ${page.total} match: the list counts no further` : null}, totalText),
      ` dead letter${page.total === 1 && page.total_exact !== false ? '' : 's'} match${page.total === 1 && page.total_exact !== false ? 'es' : ''}`,
      page.total_exact === false ? ` (counted up to ${page.total}, no further)` : '',
      page.items.length ? `; showing ${offset + 1}–${shownTo}.` : '.', ' ',
      page.total > 0 && !selection.allMatching ? h('button', {type: 'button', class: 'link', testid: 'select-all-matching',
        onclick: () => { selection.allMatching = true; go(location.hash); }}, `Select all ${totalText} matching the filter`) : null),
    bulkBar,
    table([selectPage, 'Id', 'Status', 'Queue', 'Reason', 'Class', 'Error', 'Recipient', 'Subject', 'Campaign', 'Tenant', 'Attempts', 'Failed at'],
      rows, 'dl-table', (r) => ({testid: 'dl-row', 'data-id': r.d.id, 'data-status': r.d.status, 'data-reason': r.d.reason, 'data-message-id': r.d.message_id})),
    h('div', {class: 'pager'},
      offset > 0 ? h('a', {href: '#/dead-letters' + query({...filters, offset: Math.max(0, offset - PAGE)})}, '← Previous page') : null,
      page.next !== null && page.next !== undefined ? h('a', {href: '#/dead-letters' + query({...filters, offset: page.next}), testid: 'next-page'}, 'Next page →') : null,
      planFromFilter(filters)));
  refreshBulk();
}

/**
 * "Plan a redrive of the open ones matching this filter": the plan form with the list's whole filter. A filter the
 * plan cannot hold is never dropped (the plan would select more than the list shows): the link is refused instead.
 */
export function planFromFilter(filters) {
  const given = Object.entries(filters).filter(([, v]) => v !== undefined && v !== null && String(v).trim() !== '');
  const lost = given.map(([k]) => k).filter((k) => !REDRIVE_FILTERS.some(([n]) => n === k));
  if (lost.length) {
    return h('span', {class: 'hint', testid: 'plan-from-filter-refused'},
      `A plan cannot hold the filter ${lost.join(', ')}: select rows instead.`);
  }
  return h('a', {href: '#/redrives/new' + query(Object.fromEntries(given)), testid: 'plan-from-filter'},
    'Plan a redrive of the open ones matching this filter');
}

/** The badge of a dead letter whose replay dead-lettered again: it links to the next lap. */
export function failedAgainBadge(nextId, testid = 'failed-again-badge') {
  return h('a', {href: '#/dead-letters/' + nextId, class: 'status status-failed-again', testid,
    title: `Replayed, and it failed again: its next lap is dead letter #${nextId}`}, `replayed → failed again (#${nextId})`);
}

// ------------------------------------------------------------------ detail

export function decodePayload(b64) {
  if (b64 === null || b64 === undefined) return null;
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

export function hexDump(bytes) {
  const lines = [];
  for (let off = 0; off < bytes.length; off += 16) {
    const chunk = bytes.slice(off, off + 16);
    const hex = [...chunk].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...chunk].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${off.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  |${ascii}|`);
  }
  return lines.join('\n');
}

export async function deadLetterDetail(id, seq) {
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
    h('p', {}, h('a', {href: lastListHash(), testid: 'back-to-list'}, '← Back to the list'), ' · ',
      h('a', {href: '#/dead-letters' + query({queue: d.source_queue, status: 'open'})}, `open dead letters of ${d.source_queue}`)),
    h('h1', {}, `Dead letter #${d.id} `, d.next_dead_letter_id ? failedAgainBadge(d.next_dead_letter_id, 'dl-status') : statusBadge(d.status, 'dl-status')),
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
      table(attemptKeys.map(columnName), attempts.map((a) => ({cells: attemptKeys.map((k) => attemptCell(k, a[k]))})), 'attempts')),
    h('section', {class: 'card'}, h('h2', {}, 'Job timeline'),
      job instanceof Error ? h('p', {class: 'muted', testid: 'timeline'}, job.status === 404 ? 'No job was recorded for this message (e.g. a payload that never parsed).' : job.message)
        : job ? [h('p', {}, 'Job state: ', statusBadge(job.state, 'job-state'), ' ', jobLink(d.message_id, d.source_queue, 'Open the job')),
          table(['At', 'Event', 'Detail', 'By'], (job.timeline || []).map((e) => ({cells: [when(e.at), e.type, e.detail, e.actor]})), 'timeline')]
          : h('p', {class: 'muted', testid: 'timeline'}, 'No message id, so no job.')),
    h('section', {class: 'card'}, h('h2', {}, 'Status history'),
      table(['At', 'From', 'To', 'By', 'Why'], (d.history || []).map((c) => ({cells: [when(c.at), c.from_status, c.to_status, c.actor, c.reason]})), 'history')),
    Array.isArray(revisions) && revisions.length ? h('section', {class: 'card'}, h('h2', {}, 'Revisions'),
      table(['Revision', 'By', 'At', 'Why', 'Idempotency key', 'Diff'], revisions.map((r) => ({cells: [r.revision, r.created_by, when(r.created_at), r.reason, r.idempotency_key, h('pre', {class: 'wrap'}, r.diff ?? '')]})), 'revisions')) : null,
  );
}

export function actions(d, bytes, revisions) {
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
