import {state, h, render, flash, when, table, viewerNote, get, post, query, confirmAction} from './core.js';

// ------------------------------------------------------------------ held ordering keys
// #/keys?queue=   the ordering keys held after a dead-lettered head (a queue set to hold); release one (operator)

export async function heldKeys(params, seq) {
  render(seq, h('h1', {}, 'Held ordering keys'), h('p', {class: 'muted'}, 'Loading…'));
  const page = await get('/keys' + query({state: 'held', queue: params.queue}));
  const rows = page.keys.map((k) => ({k, cells: [
    k.queue, h('span', {testid: 'key-name'}, k.ordering_key), h('span', {testid: 'key-why'}, k.held_reason),
    when(k.held_at),
    h('a', {href: '#/jobs' + query({state: 'waiting_for_key'}), testid: 'key-waiting'}, `${k.waiting} waiting`),
    releaseAction(k, params)]}));
  render(seq, h('h1', {}, 'Held ordering keys'),
    h('p', {class: 'hint'}, 'A job of an ordering key that was dead-lettered on a queue set to hold ',
      '(mailroom.ordering.after-dead-letter) holds its key: the key\'s later jobs wait, in order, until you release it. ',
      'Releasing sends the first waiting job now and the others after it, each when the one before has ended.'),
    viewerNote(),
    h('p', {class: 'muted', testid: 'keys-count'}, `${page.keys.length} held`),
    table(['Queue', 'Ordering key', 'Held because', 'Since', 'Jobs', ''], rows, 'keys-table',
      (x) => ({testid: 'key-row', 'data-key': x.k.ordering_key, 'data-queue': x.k.queue})));
}

function releaseAction(k, params) {
  return confirmAction({name: 'key-release', label: 'Release', question: `Why release ${k.ordering_key}? Its waiting jobs go.`,
    confirmLabel: 'Release the key', placeholder: 'e.g. the dead-lettered mail was sent by hand',
    onConfirm: async (why) => {
      const seq = state.routeSeq;
      try {
        await post('/keys/release' + query({queue: k.queue, key: k.ordering_key}), {reason: why});
        flash(`Key ${k.ordering_key} released: its waiting jobs go in order.`);
      } catch (e) {
        flash('Release refused: ' + e.message, true);
      }
      await heldKeys(params, seq);
    }});
}
