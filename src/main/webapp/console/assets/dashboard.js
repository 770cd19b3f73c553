import {state, h, svg, render, flash, ageOf, when, table, actionAttrs, get, post, query, errorBox, go} from './core.js';

// ------------------------------------------------------------------ dashboard

export async function dashboard(seq) {
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
export function providerPanel(providers) {
  return h('section', {class: 'queue-card', testid: 'providers'},
    h('h2', {}, 'Providers'),
    table(['Provider', 'Kind', 'Breaker', 'Since', 'Last failure', 'Rate limit'],
      providers.map((p) => ({p, cells: [h('code', {}, p.name), p.kind,
        h('span', {class: 'breaker breaker-' + p.state, testid: 'breaker-state'}, p.state.replace('_', '-')),
        when(p.since), p.last_failure, p.rate_limit_per_second.toFixed(1) + '/s']})),
      'provider-table', (r) => ({testid: 'provider', 'data-provider': r.p.name})));
}

export function queueCard(name, figures, groups) {
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
        h('a', {href: '#/dead-letters' + query({queue: g.queue, reason: g.reason, error_type: g.error_type, fingerprint: g.fingerprint, status: 'open'}),
          testid: 'group-link'}, g.count),
        g.reason, g.error_type, g.normalised_error, when(g.oldest), when(g.newest)]})),
      'failure-groups', (r) => ({testid: 'failure-group', 'data-reason': r.g.reason})),
    h('p', {}, h('a', {href: '#/dead-letters' + query({queue: name, status: 'open'}), testid: 'queue-list-link'},
      `See all open dead letters of ${name}`)));
}

/** A stopped line: why and since when, and (for an operator) the button that starts it again. */
export function pausedBanner(name, figures) {
  const resume = async (e) => {
    e.target.disabled = true;
    try {
      await post(`/queues/${encodeURIComponent(name)}/resume`);
      flash(`Consumers of ${name} resumed.`);
    } catch (err) {
      flash('Resuming failed: ' + err.message, true);
    }
    go(location.hash || '#/');
  };
  return h('div', {class: 'paused-banner', testid: 'paused-banner', 'data-reason': figures.paused_reason || ''},
    h('span', {class: 'status status-paused', testid: 'paused-badge'}, 'paused: ' + (figures.paused_reason || 'by hand')),
    ' since ', figures.paused_since ? when(figures.paused_since) : '—',
    figures.paused_detail ? h('div', {class: 'hint', testid: 'paused-detail'}, figures.paused_detail) : null,
    h('p', {class: 'hint'}, 'Its jobs wait on the broker: nothing is dead-lettered and no retry is used. ',
      'A probe starts it again when the cause is gone; resume by hand once you have fixed it.'),
    h('button', actionAttrs({type: 'button', testid: 'queue-resume-button', onclick: resume}), `Resume ${name}`));
}

export async function loadChart(queue, range, box) {
  const [hours, bucket] = range.split(':');
  try {
    const buckets = await get('/dead-letters/arrivals' + query({queue, bucket, hours}));
    box.replaceChildren(arrivalsChart(buckets, bucket));
  } catch (e) {
    box.replaceChildren(errorBox(e, 'arrivals-error'));
  }
}

export function arrivalsChart(buckets, bucket) {
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
