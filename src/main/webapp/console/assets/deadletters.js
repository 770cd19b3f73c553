import {jobLink} from './jobs.js';
import {LIST_FILTERS, state, h, render, flash, when, statusBadge, kvTable, table, canAct, actionAttrs, viewerNote, get, post, query, filterForm, go, columnName, attemptCell} from './core.js';

export async function deadLetterList(params, seq) {
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
