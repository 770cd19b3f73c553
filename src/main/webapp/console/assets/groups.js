// Failure groups as objects: every open group (same queue, reason, error type and normalised error — one
// cause, usually one fix), with a link to exactly its dead letters and to a plan of them.
import {h, render, when, query, get, table, canAct} from './core.js';

/** The list of exactly this group's dead letters: its fingerprint, not only its reason, picks them. */
export function groupListHash(g, status = 'open') {
  return '#/dead-letters' + query({status, queue: g.queue, reason: g.reason, error_type: g.error_type,
    fingerprint: g.fingerprint ?? g.normalised_error});
}

/** A plan (dry run) of this group's open dead letters. */
export function groupPlanHash(g, action) {
  return '#/redrives/new' + query({action, queue: g.queue, reason: g.reason, error_type: g.error_type,
    fingerprint: g.fingerprint ?? g.normalised_error});
}

export async function groupList(params, seq) {
  render(seq, h('h1', {}, 'Failure groups'), h('p', {class: 'muted'}, 'Loading…'));
  const groups = await get('/dead-letters/groups' + query({status: 'open', queue: params.queue, reason: params.reason}));
  const total = groups.reduce((n, g) => n + g.count, 0);
  render(seq, h('h1', {}, 'Failure groups'),
    h('p', {class: 'hint'}, 'Open dead letters grouped by cause: same queue, reason, error type and normalised error ',
      '(addresses, numbers, ids and quoted text replaced). Open a group to see exactly its dead letters; plan a ',
      'redrive or a discard of it once its cause is fixed. "A fix may have shipped": none of its dead letters failed ',
      'under the version running now.'),
    h('p', {testid: 'group-total'}, `${groups.length} open group${groups.length === 1 ? '' : 's'}, ${total} dead letter${total === 1 ? '' : 's'}.`),
    table(['Dead letters', 'Queue', 'Reason', 'Error type', 'Error (normalised)', 'First seen', 'Last seen', 'Consumer versions', ''],
      groups.map((g) => ({g, cells: [
        h('a', {href: groupListHash(g), testid: 'group-open'}, String(g.count)), g.queue, g.reason, g.error_type,
        [h('code', {testid: 'group-fingerprint'}, g.fingerprint ?? g.normalised_error ?? '—'),
          g.fix_may_have_shipped ? [' ', h('span', {class: 'status status-fix', testid: 'fix-may-have-shipped',
            title: 'Every dead letter of this group failed under an older consumer version than the one running now'},
          'a fix may have shipped')] : null],
        when(g.first_seen ?? g.oldest), when(g.last_seen ?? g.newest), (g.consumer_versions || []).join(', ') || '—',
        h('span', {class: 'row-actions'},
          h('a', {href: groupPlanHash(g, 'replay'), testid: 'group-plan-replay',
            title: canAct() ? null : 'A viewer can look at the plan form but not plan'}, 'Plan a redrive'), ' · ',
          h('a', {href: groupPlanHash(g, 'discard'), testid: 'group-plan-discard'}, 'Plan a discard'))]})),
      'groups-table', (r) => ({testid: 'group-row', 'data-queue': r.g.queue, 'data-reason': r.g.reason,
        'data-fingerprint': r.g.fingerprint ?? r.g.normalised_error, 'data-count': r.g.count})));
}
