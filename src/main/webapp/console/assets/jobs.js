// Jobs: find a job the way support asks ("did the password reset reach alice@…?") and read it whole: state,
// attempts, timeline (delivery events included), each recipient's delivery state or suppression and why.
// Uses GET /api/v1/jobs (search, keyset-paged by `cursor`) and GET /api/v1/jobs/{message_id}?queue=.
import {h, render, when, statusBadge, kvTable, table, get, post, query, filterForm, go, errorBox, flash, confirmAction,
  state} from './core.js';

export const JOB_STATES = ['received', 'scheduled', 'sending', 'retry_scheduled', 'waiting_for_key', 'sent_to_provider', 'delivered', 'bounced',
  'complained', 'bounced_permanent', 'dead_lettered', 'discarded', 'duplicate_suppressed', 'suppressed', 'unknown',
  'cancelled'];
export const JOB_FILTERS = [
  ['recipient', 'Recipient (alice@example.com, @example.com, alice* or any part: alice)', 'text'], ['message_id', 'Message id', 'text'],
  ['idempotency_key', 'Idempotency key', 'text'], ['campaign_id', 'Campaign', 'text'], ['tenant', 'Tenant', 'text'],
  ['state', 'State', JOB_STATES], ['from', 'Received from (ISO instant, e.g. 2026-11-29T10:00:00Z)', 'text'],
  ['to', 'Received before (ISO instant)', 'text'],
];

/** A link to a job's page; {@code list} is the search it was found by (kept for "back to the list"). */
export function jobLink(messageId, queue, label, list) {
  if (!messageId) return label ?? '—';
  return h('a', {href: '#/jobs/' + encodeURIComponent(messageId) + query({queue, list}), testid: 'job-link'},
    label ?? messageId);
}

export async function jobList(params, seq) {
  const filters = Object.fromEntries(JOB_FILTERS.map(([n]) => [n, params[n]]));
  const form = filterForm(JOB_FILTERS, filters, 'job-filter', (v) => go('#/jobs' + query(v)), 'Find jobs',
    [h('a', {href: '#/jobs', class: 'muted'}, 'Clear')]);
  const title = h('h1', {}, 'Jobs');
  const hint = h('p', {class: 'hint'}, 'Newest first. Search by recipient, id, campaign, tenant, state or time, then open a job ',
    'to see its attempts, its timeline with delivery events, and each recipient\'s delivery state.');
  // the queues' figures come beside the search, never before it: the page says "Searching…" at once
  const waitingLoad = waitingLinks();
  let waiting = null;
  const searched = JOB_FILTERS.some(([n]) => filters[n]);
  if (!searched) {
    render(seq, title, hint, waiting, form, h('p', {class: 'muted', testid: 'job-count'}, 'Showing the newest jobs; search to narrow.'));
  } else {
    render(seq, title, hint, waiting, form, h('p', {class: 'muted'}, 'Searching…'));
  }
  let page;
  try {
    [page, waiting] = await Promise.all([get('/jobs' + query({...filters, cursor: params.cursor, limit: 50})), waitingLoad]);
  } catch (e) {
    if (e.status !== 400) throw e;
    waiting = await waitingLoad;
    // a bad value is the form's problem, not the page's: say which field next to the form
    return render(seq, title, hint, waiting, form, errorBox(e, 'job-search-error'));
  }
  const list = query({...filters, cursor: params.cursor}).slice(1);
  const rows = page.items.map((j) => ({j, cells: [
    jobLink(j.message_id, j.queue, h('code', {}, j.message_id), list),
    h('span', {}, statusBadge(j.state), j.state === 'scheduled' ? h('span', {class: 'muted'}, ' until ', when(j.send_at)) : ''), j.queue,
    (j.recipients || []).join(', '), j.tenant, j.campaign_id, when(j.received_at), when(j.updated_at)]}));
  render(seq, title, hint, waiting, form,
    h('p', {testid: 'job-count', 'data-list': list}, `${page.items.length} shown${page.next ? ' (more on the next page)' : ''}${params.cursor ? ', continuing an earlier page' : ''}.`),
    table(['Message id', 'State', 'Queue', 'Recipients', 'Tenant', 'Campaign', 'Received', 'Last change'], rows, 'job-table',
      (r) => ({testid: 'job-row', 'data-message-id': r.j.message_id, 'data-state': r.j.state, 'data-id': r.j.id})),
    h('div', {class: 'pager'},
      params.cursor ? h('a', {href: '#/jobs' + query(filters)}, '← Newest') : null,
      page.next ? h('a', {href: '#/jobs' + query({...filters, cursor: page.next}), testid: 'job-next-page'}, 'Next page →') : null));
}

export async function jobPage(messageId, params, seq) {
  render(seq, h('h1', {}, `Job ${messageId}`), h('p', {class: 'muted'}, 'Loading…'));
  const back = h('p', {}, h('a', {href: '#/jobs' + (params.list ? '?' + params.list : ''), testid: 'back-to-jobs'}, '← Back to the list'));
  let j;
  try {
    j = await get('/jobs/' + encodeURIComponent(messageId) + query({queue: params.queue}));
  } catch (e) {
    if (e.status !== 404 && e.status !== 409) throw e;
    return render(seq, back, h('h1', {}, `Job ${messageId}`), errorBox(e, 'job-error'));
  }
  const recipients = j.recipients || [];
  const attempts = j.attempts || [];
  const last = attempts[attempts.length - 1];
  // the provider's answer as it gave it (an SMTP answer already starts with its codes)
  const refusal = last && last.outcome === 'rejected' ? last.response ?? [last.code, last.enhanced_code].filter(Boolean).join(' ') : null;
  const suppressed = recipients.filter((r) => r.delivery_state === 'suppressed');
  const why = await suppressionsBehind(j, suppressed);
  render(seq, back,
    h('h1', {}, `Job ${j.message_id} `, statusBadge(j.state, 'job-page-state')),
    h('p', {class: 'lead', testid: 'job-headline'}, j.subject ? `“${j.subject}”` : j.template_id ? `template ${j.template_id}` : '',
      j.queued_at ? h('span', {class: 'muted'}, ' · queued ', when(j.queued_at)) : ''),
    j.state === 'scheduled' ? scheduledNote(j) : null,
    (j.dead_letters || []).length ? h('p', {}, 'Dead-lettered: ', deadLetterLinks(j.dead_letters)) : null,
    suppressed.length ? h('p', {class: 'error', testid: 'job-suppressed-note'},
      `Not sent to ${suppressed.map((r) => r.address).join(', ')}: suppressed (see why below).`) : null,
    suppressed.length ? whySuppressed(j, suppressed, why) : null,
    h('section', {class: 'card'}, h('h2', {}, `Recipients (${recipients.length})`),
      table(['Kind', 'Address', 'Delivery state', 'Detail (provider\'s words, or why suppressed)', 'At'],
        recipients.map((r) => ({r, cells: [r.kind, r.address, statusBadge(DELIVERY_WORDS[r.delivery] ?? r.delivery, 'recipient-delivery'),
          r.delivery_detail ?? (r.delivery === 'refused' ? refusal : null), when(r.delivery_at)]})), 'job-recipients',
        (x) => ({testid: 'recipient-row', 'data-address': x.r.address, 'data-delivery-state': x.r.delivery_state ?? '',
          'data-delivery': x.r.delivery}))),
    h('section', {class: 'card'}, h('h2', {}, 'Timeline'),
      table(['At', 'Event', 'Detail', 'By'], (j.timeline || []).map((e) => ({e, cells: [when(e.at),
        e.type.startsWith('delivery_') ? h('strong', {}, e.type) : e.type, e.detail, e.actor]})), 'job-timeline',
        (x) => ({testid: 'timeline-row', 'data-type': x.e.type}))),
    h('section', {class: 'card'}, h('h2', {}, `Attempts (${attempts.length})`),
      table(['#', 'Provider', 'Started', 'Finished', 'Outcome', 'Code', 'Enhanced code', 'Provider\'s answer', 'Error type',
        'Failure class', 'Used a retry', 'Decision'], attempts.map((a) => ({a, cells: [a.number, a.provider,
        when(a.started_at), when(a.finished_at), a.outcome, a.code, a.enhanced_code, a.response, a.error_type,
        a.failure_class, a.used_retry ? 'yes' : 'no', a.decision]})), 'job-attempts',
        (x) => ({testid: 'attempt-row', 'data-used-retry': String(x.a.used_retry)}))),
    h('section', {class: 'card'}, h('h2', {}, 'Job'), kvTable([
      ['State', statusBadge(j.state), 'job-field-state'], ['Queue', j.queue], ['Message id', j.message_id, 'job-field-message-id'],
      ['Subject', j.subject, 'job-field-subject'], ['Template', j.template_id, 'job-field-template'],
      ['Idempotency key', j.idempotency_key], ['Tenant', j.tenant], ['Campaign', j.campaign_id], ['Category', j.category],
      ['Provider', j.provider], ['Provider message id', j.provider_message_id], ['Retries used', j.retries_used, 'job-field-retries-used'],
      ['Provider calls', j.provider_calls], ['Trace id', j.trace_id],
      ['Queued (sent by the producer)', when(j.queued_at), 'job-field-queued'],
      ['Received (taken by Mailroom)', when(j.received_at), 'job-field-received'],
      ['Send at (send_at: not sent before)', when(j.send_at), 'job-field-send-at'],
      ['Ordering key (its place in the key)', j.ordering_key ? `${j.ordering_key} (${j.key_seq})` : '', 'job-field-ordering-key'],
      ['Sent', when(j.sent_at)], ['Last change', when(j.updated_at)], ['Expires (validity window)', when(j.expires_at)],
      ['Dead letters of this job', deadLetterLinks(j.dead_letters || []), 'job-field-dead-letters'],
    ], 'job-summary')));
}

/** A job waiting for its send_at: when it goes, and an operator's cancel (asked in the page, with a reason). */
function scheduledNote(j) {
  return h('p', {class: 'lead', testid: 'job-scheduled-note'}, 'Waits on the broker until ', when(j.send_at),
    ' (send_at); nothing is sent before. ',
    confirmAction({name: 'job-cancel', label: 'Cancel this send', question: 'Why cancel it? It will never be sent.',
      confirmLabel: 'Cancel the send', placeholder: 'e.g. the customer cancelled the appointment', buttonClass: 'danger',
      onConfirm: async (why) => {
        const seq = state.routeSeq;
        try {
          await post('/jobs/' + encodeURIComponent(j.message_id) + '/cancel' + query({queue: j.queue}), {reason: why});
          flash(`Job ${j.message_id} cancelled: it will not be sent.`);
        } catch (e) {
          flash('Cancel refused: ' + e.message, true);
        }
        await jobPage(j.message_id, {queue: j.queue}, seq);
      }}));
}

/** What the recipients table says for each {@code delivery} the server infers (a recorded state is shown as it is). */
const DELIVERY_WORDS = {not_sent_yet: 'not sent yet', not_yet_known: 'not yet known', refused: 'refused (not sent)',
  not_sent: 'not sent', may_have_been_sent: 'may have been sent'};

/** A job's dead letters, newest first, each a link straight to it. */
function deadLetterLinks(list) {
  if (!list.length) return h('span', {class: 'muted'}, 'none');
  return h('span', {}, list.map((d, i) => h('span', {}, i ? ', ' : '',
    h('a', {href: '#/dead-letters/' + d.id, testid: 'job-dead-letter-link', 'data-id': d.id},
      `#${d.id} ${d.reason} (${d.status}${d.lap > 1 ? ', lap ' + d.lap : ''})`))));
}

/** "Waiting on the broker" links of the Jobs page: each send queue with how many jobs wait on it. */
async function waitingLinks() {
  let queues;
  try {
    queues = await get('/queues');
  } catch (e) {
    return null; // the broker's figures are the dashboard's concern; the search works without them
  }
  return h('p', {testid: 'waiting-links'}, 'Waiting on the broker: ', queues.map((q, i) => h('span', {}, i ? ', ' : '',
    h('a', {href: '#/waiting' + query({queue: q.queue}), testid: 'waiting-link', 'data-queue': q.queue},
      `${q.queue} (${q.depth}${q.paused ? ', paused' : ''})`))));
}

/** The jobs waiting on the broker for a queue: browsed, never taken, the first 100. */
export async function waitingList(params, seq) {
  const back = h('p', {}, h('a', {href: '#/jobs'}, '← Jobs'));
  const title = h('h1', {}, `Waiting on ${params.queue ?? '?'}`);
  render(seq, back, title, h('p', {class: 'muted'}, 'Loading…'));
  let w;
  try {
    w = await get('/queues/' + encodeURIComponent(params.queue ?? '') + '/waiting' + query({limit: 100}));
  } catch (e) {
    if (e.status !== 404 && e.status !== 400 && e.status !== 503) throw e;
    return render(seq, back, title, errorBox(e, 'waiting-error'));
  }
  const rows = w.items.map((m) => ({m, cells: [
    m.message_id ? jobLink(m.message_id, w.queue, h('code', {}, m.message_id)) : '—',
    (m.recipients || []).join(', '), m.subject ?? (m.template_id ? `template ${m.template_id}` : null), m.tenant,
    when(m.queued_at), m.retry_of ? 'retry copy' : 'from the producer', m.delivery_count,
    m.unreadable ? h('span', {class: 'error'}, m.unreadable) : null]}));
  render(seq, back, title,
    h('p', {class: 'hint'}, 'Jobs on the broker not yet taken, head first, read without taking them off the queue: ',
      'a paused line keeps them here until it resumes. Copies scheduled for later (retries, jobs waiting for their send_at) are counted, not listed.'),
    h('p', {testid: 'waiting-count'}, `${w.items.length} shown of ${w.depth} on the queue`,
      `${w.scheduled ? `, ${w.scheduled} scheduled for later` : ''}${w.in_flight ? `, ${w.in_flight} being delivered` : ''}`,
      w.paused ? ' — consumers paused' : ''),
    table(['Message id', 'Recipients', 'Subject or template', 'Tenant', 'Queued', 'Kind', 'Deliveries', 'Not a job because'],
      rows, 'waiting-table', (r) => ({testid: 'waiting-row', 'data-message-id': r.m.message_id ?? ''})));
}

/** The suppression entry recorded as withholding each suppressed recipient ("#id" in its detail), else its newest for the job's tenant. */
async function suppressionsBehind(j, suppressed) {
  const found = new Map();
  for (const r of suppressed) {
    if (!r.address || r.address.startsWith('[')) continue; // redacted for a viewer: nothing to look up
    try {
      // tenant= (empty) is the default tenant; query() would drop it
      const page = await get('/suppressions' + query({address: r.address, status: 'all', limit: 100})
        + '&tenant=' + encodeURIComponent(j.tenant ?? ''));
      const id = /#(\d+)/.exec(r.delivery_detail || '');
      const mine = page.items.filter((s) => s.address === r.address);
      found.set(r.position, mine.find((s) => id && String(s.id) === id[1]) ?? mine[0] ?? null);
    } catch (e) {
      found.set(r.position, e);
    }
  }
  return found;
}

/** Why each withheld recipient was not mailed: the list entry, its reason and what caused it (the provider event and its job, or an operator). */
function whySuppressed(j, suppressed, entries) {
  const cause = (s) => s.reason === 'manual'
    ? h('span', {testid: 'why-cause'}, 'added by ', s.created_by, ': ', s.created_why)
    : h('span', {testid: 'why-cause'}, s.cause,
      s.cause_event_id != null ? h('span', {testid: 'why-cause-event'}, ` — provider event ${s.cause_event_id}`) : '',
      s.cause_message_id ? h('span', {}, ' of job ', jobLink(s.cause_message_id, s.cause_queue, null)) : '');
  const rows = suppressed.map((r) => {
    const s = entries.get(r.position);
    if (!s || s instanceof Error) {
      return {r, cells: [r.address, s instanceof Error ? errorBox(s, 'why-error') : h('span', {class: 'muted'}, 'entry not found'),
        '', r.delivery_detail, '', '']};
    }
    return {r, s, cells: [r.address,
      h('a', {href: '#/suppressions' + query({address: s.address}), testid: 'why-entry'}, `#${s.id}`),
      statusBadge(s.reason, 'why-reason'), cause(s), when(s.created_at),
      s.active ? h('span', {testid: 'why-status'}, statusBadge('active'), ' (still suppressed: a new job is not sent to it either)')
        : h('span', {testid: 'why-status'}, statusBadge('lifted'), ' ', when(s.lifted_at), ' by ', s.lifted_by, ': ', s.lifted_why,
          ' (a new job would be sent to it)')]};
  });
  return h('section', {class: 'card', testid: 'job-suppression-why'}, h('h2', {}, 'Why suppressed'),
    table(['Recipient', 'Entry', 'Reason', 'Caused by', 'Since', 'Now'], rows, 'why-table',
      (x) => ({testid: 'why-row', 'data-address': x.r.address, 'data-entry': x.s ? x.s.id : ''})));
}
