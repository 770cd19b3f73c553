import {jobLink} from './jobs.js';
import {REDRIVE_FILTERS, state, h, render, flash, when, statusBadge, kvTable, table, canAct, actionAttrs, viewerNote, get, post, errorBox, filterForm} from './core.js';

// ------------------------------------------------------------------ redrives

export async function redriveList(seq) {
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

export function outcomesText(outcomes) {
  return outcomes && Object.keys(outcomes).length ? Object.entries(outcomes).map(([k, v]) => `${k}: ${v}`).join(', ') : '—';
}

export async function redrivePlanForm(params, seq) {
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
      e.queue, e.reason, e.lap, e.phase, statusBadge(e.outcome, 'entry-outcome'), when(e.published_at), e.revision, e.detail]})),
    testid, (x) => ({testid: 'entry-row', 'data-dead-letter-id': x.e.dead_letter_id, 'data-outcome': x.e.outcome}));
}
