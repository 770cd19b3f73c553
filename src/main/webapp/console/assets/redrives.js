import {jobLink} from './jobs.js';
import {REDRIVE_FILTERS, state, h, render, flash, when, statusBadge, kvTable, table, canAct, actionAttrs, viewerNote, get, post, errorBox, filterForm, confirmAction} from './core.js';

// ------------------------------------------------------------------ redrives

export async function redriveList(seq) {
  render(seq, h('h1', {}, 'Redrives'), h('p', {class: 'muted'}, 'Loading…'));
  const records = await get('/redrives?limit=50');
  render(seq, h('h1', {}, 'Redrives'),
    h('p', {class: 'hint'}, 'Every planned and run redrive with its recovery record, newest first. ',
      h('a', {href: '#/redrives/new', testid: 'new-redrive-link'}, 'Plan a new redrive')),
    table(['Id', 'Action', 'Status', 'Entries', 'Sent', 'Failed again', 'Not run', 'Other outcomes', 'Planned by', 'Planned at', 'Finished'],
      records.map((r) => {
        const t = tally(r.outcomes);
        return {r, cells: [h('a', {href: '#/redrives/' + r.id, testid: 'redrive-link'}, r.id), r.action, statusBadge(r.status),
          r.cohort ? r.cohort.count : '—', h('span', {testid: 'rl-sent'}, t.sent), h('span', {testid: 'rl-failed-again', class: t.failed ? 'error' : ''}, t.failed),
          h('span', {testid: 'rl-not-run'}, t.notRun), outcomesText(t.other), r.created_by, when(r.created_at), when(r.finished_at)]};
      }),
      'redrive-table', (x) => ({testid: 'redrive-row', 'data-id': x.r.id})));
}

// What a run's outcomes add up to, for people: sent (or discarded, for a discard plan), failed again, not run,
// still on its way, and the rest by name.
const SENT = ['sent', 'discarded', 'duplicate_suppressed'];
const FAILED = ['dead_lettered_again', 'bounced_permanent', 'unknown'];
const NOT_RUN = ['not_run', 'skipped_changed', 'discarded_expired'];
const ON_ITS_WAY = ['pending', 'published'];

export function tally(outcomes) {
  const t = {sent: 0, failed: 0, notRun: 0, onItsWay: 0, other: {}};
  for (const [k, v] of Object.entries(outcomes || {})) {
    if (SENT.includes(k)) t.sent += v;
    else if (FAILED.includes(k)) t.failed += v;
    else if (NOT_RUN.includes(k)) t.notRun += v;
    else if (ON_ITS_WAY.includes(k)) t.onItsWay += v;
    else t.other[k] = v;
  }
  return t;
}

/** The run's headline, from its status and what its entries' outcomes say now (never a success that was not). */
export function headline(r, t, total) {
  const done = r.action === 'discard' ? 'discarded' : 'sent';
  const parts = [`${t.sent} ${done}`];
  if (t.failed) parts.push(`${t.failed} failed again`);
  if (t.notRun) parts.push(`${t.notRun} not run (open again)`);
  if (t.onItsWay) parts.push(`${t.onItsWay} still on their way`);
  const counts = `${parts.join(', ')} of ${total}.`;
  switch (r.status) {
    case 'stopped': return {tone: 'bad', text: `Stopped before the end: ${counts}`};
    case 'interrupted': return {tone: 'bad', text: `Interrupted (the server stopped during the run): ${counts} Resume or abandon it.`};
    case 'abandoned': return {tone: 'bad', text: `Abandoned: ${counts}`};
    case 'running': return {tone: 'info', text: `Running: ${counts}`};
    case 'completed':
      if (t.failed) return {tone: 'bad', text: `Completed, partly failed: ${counts}`};
      if (t.onItsWay) return {tone: 'info', text: `Completed, sends still settling: ${counts}`};
      return {tone: 'good', text: `Completed: ${counts}`};
    default: return {tone: 'info', text: counts};
  }
}

export function outcomesText(outcomes) {
  return outcomes && Object.keys(outcomes).length ? Object.entries(outcomes).map(([k, v]) => `${k}: ${v}`).join(', ') : '—';
}

export async function redrivePlanForm(params, seq) {
  const values = {...params};
  const action = h('select', {id: 'redrive-action', testid: 'redrive-action', name: 'action'},
    h('option', {value: 'replay'}, 'replay (send them again)'), h('option', {value: 'discard'}, 'discard (resolve without sending)'));
  const opt = (name, label, placeholder) => h('div', {}, h('label', {for: 'opt-' + name}, label),
    h('input', {id: 'opt-' + name, name, testid: 'opt-' + name, placeholder}));
  if (params.action === 'discard' || params.action === 'replay') action.value = params.action;
  delete values.action;
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

export async function redrivePage(id, seq) {
  render(seq, h('h1', {}, `Redrive ${id}`), h('p', {class: 'muted'}, 'Loading…'));
  const record = await get('/redrives/' + encodeURIComponent(id));
  renderRedrive(record, seq);
}

export function renderRedrive(r, seq) {
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
      ['Finished at', when(r.finished_at)], ['Stop reason', r.stop_reason ? [h('span', {testid: 'redrive-stop-reason'}, r.stop_reason),
        stopNote(r)] : null],
      ['Options', r.options ? (r.options.skip_sample ? 'no sample (skip_sample), ' : '') + `sample ${r.options.sample_size} at ${r.options.sample_rate_per_second}/s, then ${r.options.rate_per_second}/s, sample timeout ${r.options.sample_timeout}` : null]], 'redrive-summary'),
  ];
  // the buttons are the record's own actions: what the server accepts in this status (RedriveRules.commands)
  const accepts = (command) => (r.actions || []).includes(command);
  const abandon = (what, label) => accepts('abandon') ? confirmAction({name: 'abandon', label,
    question: `Why abandon this ${what}?`, confirmLabel: `Abandon the ${what}`,
    onConfirm: (reason) => act('abandon', () => post(`/redrives/${r.id}/abandon`, {reason}))}) : null;
  if (r.status === 'planned') {
    const runButton = accepts('run') ? h('button', actionAttrs({type: 'button', testid: 'run-button', id: 'run-button',
      onclick: (e) => { e.target.disabled = true; act('run', () => post(`/redrives/${r.id}/run`)); }}), `Run: ${r.action} these ${total}`) : null;
    parts.push(h('section', {class: 'card', testid: 'review'}, h('h2', {}, 'Review the plan (dry run: nothing has changed yet)'),
      h('p', {}, h('strong', {testid: 'cohort-count'}, total), ` open dead letter${total === 1 ? '' : 's'} would be ${r.action === 'discard' ? 'discarded' : 'replayed'}.`),
      h('div', {class: 'actions'}, breakdown('By reason', r.cohort && r.cohort.by_reason, 'by-reason'),
        breakdown('By queue', r.cohort && r.cohort.by_queue, 'by-queue'),
        breakdown('Matched but left out, by why', r.cohort && r.cohort.excluded, 'excluded')),
      h('h3', {}, 'First entries'), entryTable(entries.slice(0, 20), 'review-entries'),
      viewerNote(),
      runButton ? poisonWarning(r, runButton) : null,
      h('p', {}, runButton, ' ', abandon('plan', 'Abandon the plan')),
      result));
  } else {
    const t = tally(r.outcomes);
    const head = headline(r, t, total);
    const pct = (n) => `width: ${total ? (100 * n / total).toFixed(2) : 0}%`;
    parts.push(h('section', {class: 'card', testid: 'progress'}, h('h2', {}, r.status === 'running' ? 'Running (updates every second)' : 'Progress'),
      h('p', {class: `headline headline-${head.tone}`, testid: 'redrive-headline', 'data-tone': head.tone}, head.text),
      h('div', {class: 'progress segmented', testid: 'progress-bar', title: head.text, 'data-sent': t.sent, 'data-failed': t.failed, 'data-not-run': t.notRun},
        h('div', {class: 'seg-sent', style: pct(t.sent)}), h('div', {class: 'seg-failed', style: pct(t.failed)}),
        h('div', {class: 'seg-on-its-way', style: pct(t.onItsWay)}), h('div', {class: 'seg-not-run', style: pct(t.notRun)})),
      h('p', {testid: 'redrive-progress'}, `${done} of ${total} entries reached, ${settled} settled.`),
      h('p', {testid: 'redrive-phase'}, 'Phase: ', h('strong', {}, currentPhase(r)),
        ` — ${entries.filter((e) => e.published_at).length} of ${total} published back onto their queue${r.status === 'running' ? ' so far' : ''}.`),
      h('h3', {}, 'Outcomes'), table(['Outcome', 'Entries'], Object.entries(r.outcomes || {}).map(([k, v]) => ({k, cells: [statusBadge(k), v]})), 'outcomes', (x) => ({'data-outcome': x.k})),
      h('h3', {}, 'Phases'), table(['Phase', 'Started', 'Finished', 'Entries', 'Result'], (r.phases || []).map((p) => ({cells: [p.name, when(p.started_at), when(p.finished_at), p.entries, p.result]})), 'phases'),
      accepts('resume') || accepts('abandon') ? h('p', {}, viewerNote(),
        accepts('resume') ? h('button', actionAttrs({type: 'button', testid: 'resume-button', onclick: () => act('resume', () => post(`/redrives/${r.id}/resume`))}), 'Resume the run') : null, ' ',
        abandon('run', 'Abandon (the rest stays open)')) : null,
      r.status === 'stopped' ? h('p', {class: 'hint', testid: 'stopped-note'}, 'A stopped run is over: its entries that were not run ',
        'are open dead letters again. Fix the cause, then plan a new redrive for them.') : null,
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

/**
 * A replay of poison entries without an edit sends the same unreadable bytes again: they can only fail again. The
 * plan says so first, and its run button waits until the operator says they know.
 */
function poisonWarning(r, runButton) {
  const poison = (r.entries || []).filter((e) => e.reason === 'poison' && !e.planned_revision);
  if (r.action !== 'replay' || !poison.length) return null;
  runButton.disabled = true;
  const ack = h('input', {type: 'checkbox', id: 'poison-ack', testid: 'poison-ack',
    onchange: (e) => { runButton.disabled = !e.target.checked || !canAct(); }});
  return h('div', {class: 'warning', testid: 'poison-warning', role: 'alert'},
    h('strong', {}, `${poison.length} of these ${(r.entries || []).length} are poison with no revision: `),
    'their payload could not be read as a job, and replaying the same bytes will dead-letter them again. ',
    'Edit them first (a revision on each dead letter), or discard them.',
    h('p', {}, ack, ' ', h('label', {for: 'poison-ack', class: 'inline'}, 'I know; replay them unchanged anyway')));
}

/** What the stop reason said when the run stopped, against what the outcomes say now (sends settle later). */
function stopNote(r) {
  const t = tally(r.outcomes);
  return h('span', {class: 'hint', testid: 'stop-reason-now'},
    ` (as the run saw it when it stopped; now: ${t.failed} failed again, ${t.sent} ${r.action === 'discard' ? 'discarded' : 'sent'}, ${t.notRun} not run)`);
}

export function currentPhase(r) {
  const phases = r.phases || [];
  const open = phases.find((p) => !p.finished_at);
  if (open) return open.name;
  if (r.status === 'running') return phases.length ? `between phases (last: ${phases[phases.length - 1].name})` : 'starting';
  return phases.length ? `${r.status} after ${phases[phases.length - 1].name}` : r.status;
}

export function entryTable(entries, testid) {
  return table(['Dead letter', 'Message id', 'Queue', 'Reason', 'Lap', 'Phase', 'Outcome', 'Published', 'Revision', 'Detail'],
    entries.map((e) => ({e, cells: [h('a', {href: '#/dead-letters/' + e.dead_letter_id}, '#' + e.dead_letter_id), jobLink(e.message_id, e.queue, h('code', {}, e.message_id)),
      e.queue, e.reason, e.lap, e.phase, statusBadge(e.outcome, 'entry-outcome'), when(e.published_at), e.revision,
      [e.next_dead_letter_id ? h('div', {class: 'next-lap'}, 'Failed again: ',
        h('span', {class: 'error', testid: 'entry-next-error'}, e.next_error ?? '(no error text)'), ' ',
        h('a', {href: '#/dead-letters/' + e.next_dead_letter_id, testid: 'entry-next-lap'}, `next lap: #${e.next_dead_letter_id} →`)) : null,
      e.detail]]})),
    testid, (x) => ({testid: 'entry-row', 'data-dead-letter-id': x.e.dead_letter_id, 'data-outcome': x.e.outcome}));
}
