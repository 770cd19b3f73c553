import {state, h, svg, render, flash, ageOf, when, table, actionAttrs, get, post, query, errorBox, go, confirmAction} from './core.js';

// ------------------------------------------------------------------ dashboard
// Live: it reads everything again every REFRESH_MS while it is the page shown and the tab is visible
// (a hidden tab costs the server nothing; showing it again refreshes at once). The chart's range is in the URL
// (#/?range=24:PT1H) so a shared link shows the same window.

export const REFRESH_MS = 5000;
export const RANGES = [['1:PT5M', 'last hour, per 5 minutes'], ['6:PT15M', 'last 6 hours, per 15 minutes'],
  ['24:PT1H', 'last 24 hours, per hour'], ['168:PT6H', 'last 7 days, per 6 hours']];
const DEFAULT_RANGE = '24:PT1H';

/** The dashboard being shown: its route number, its range, and the number of its latest refresh. */
let live = null;

export async function dashboard(seq, params = {}) {
  const range = RANGES.some(([v]) => v === params.range) ? params.range : DEFAULT_RANGE;
  live = {seq, range, token: 0};
  render(seq, h('h1', {}, 'Dashboard'), h('p', {class: 'muted'}, 'Loading open dead letters per queue…'));
  const data = await load(range);
  paint(seq, range, data);
  schedule(seq);
}

document.addEventListener('visibilitychange', () => {
  if (!live || live.seq !== state.routeSeq) return;
  if (document.hidden) {
    clearTimeout(state.pollTimer);
    state.pollTimer = null;
  } else {
    refresh();
  }
});

function schedule(seq) {
  clearTimeout(state.pollTimer);
  state.pollTimer = null;
  if (document.hidden || !live || live.seq !== seq || seq !== state.routeSeq) return;
  state.pollTimer = setTimeout(refresh, REFRESH_MS);
}

/** Reads everything again and paints it, unless the user left the page or a newer refresh started meanwhile. */
async function refresh() {
  if (!live || live.seq !== state.routeSeq) return;
  const {seq, range} = live;
  const token = ++live.token;
  clearTimeout(state.pollTimer);
  try {
    const data = await load(range);
    if (live.seq !== seq || live.token !== token) return;
    // an operator typing a reason in an open confirm panel keeps it: the repaint waits for the next refresh
    if (document.querySelector('.confirm-panel:not([hidden])')) {
      schedule(seq);
      return;
    }
    // nothing changed: only "as of" moves (the page keeps its focus, and what a user points at stays put);
    // a full repaint at least every minute keeps ages and "3 min ago" true
    if (signature(data) === live.signature && Date.now() - live.paintedAt < 60000) {
      const asOf = document.querySelector('[data-testid=as-of]');
      if (asOf) {
        asOf.dataset.asOf = data.asOf;
        asOf.replaceChildren(when(data.asOf));
        document.querySelector('[data-testid=refresh-problem]')?.replaceChildren();
      }
    } else {
      paint(seq, range, data);
    }
  } catch (e) {
    if (e.status === 401) return;
    document.querySelector('[data-testid=refresh-problem]')?.replaceChildren(h('span', {class: 'error', testid: 'refresh-error'},
      ` Could not refresh (${e.message}); trying again in ${REFRESH_MS / 1000} s.`));
  }
  if (live.seq === seq && live.token === token) schedule(seq);
}

async function load(range) {
  const [hours, bucket] = range.split(':');
  const [queues, groups, providers] = await Promise.all([
    get('/queues').catch((e) => ({error: e})),
    get('/dead-letters/groups?status=open'),
    get('/providers').catch(() => []),
  ]);
  const figures = Array.isArray(queues) ? queues : [];
  const names = new Set(figures.map((q) => q.queue).filter(Boolean));
  groups.forEach((g) => names.add(g.queue));
  const sorted = [...names].sort();
  const arrivals = await Promise.all(sorted.map((queue) =>
    get('/dead-letters/arrivals' + query({queue, bucket, hours})).catch((e) => ({error: e}))));
  return {asOf: new Date().toISOString(), queuesError: queues.error, groups, providers: providers || [],
    queues: sorted.map((name, i) => ({name, figures: figures.find((q) => q.queue === name), arrivals: arrivals[i]}))};
}

const signature = (data) => JSON.stringify({...data, asOf: null});

function paint(seq, range, data) {
  live.signature = signature(data);
  live.paintedAt = Date.now();
  const bucket = range.split(':')[1];
  const rangeSelect = h('select', {testid: 'arrivals-range', 'aria-label': 'Range of the arrival charts',
    onchange: () => go('#/' + query({range: rangeSelect.value}))},
  RANGES.map(([v, label]) => h('option', {value: v, selected: v === range}, label)));
  render(seq, h('h1', {}, 'Dashboard'),
    h('div', {class: 'toolbar'},
      h('span', {testid: 'refresh-status'}, 'As of ', h('span', {testid: 'as-of', 'data-as-of': data.asOf}, when(data.asOf)),
        h('span', {class: 'muted'}, ` · refreshes every ${REFRESH_MS / 1000} s while this tab is shown`),
        h('span', {testid: 'refresh-problem'})),
      h('label', {class: 'inline'}, 'Dead-letter arrivals: ', rangeSelect)),
    h('p', {class: 'hint'}, 'Per send queue: whether it is sending (rate, provider answers over the last hour, retry ',
      'backlog, in flight), whether its consumers run, its open dead letters with their arrivals over time, and the ',
      'failure groups behind them. Click a bar to list the dead letters of its time bucket, a group to list its own.'),
    data.queuesError ? errorBox(data.queuesError, 'queues-error') : null,
    providerPanel(data.providers),
    data.queues.length
      ? data.queues.map((q) => queueCard(q.name, q.figures, data.groups.filter((g) => g.queue === q.name), q.arrivals, bucket))
      : h('p', {class: 'muted', testid: 'no-queues'}, 'No send queues and no dead letters yet.'));
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

const figure = (value, label, testid) => h('div', {class: 'figure'}, h('div', {class: 'value', testid}, value),
  h('div', {class: 'label'}, label));

export function queueCard(name, figures, groups, arrivals, bucket) {
  const open = groups.reduce((n, g) => n + g.count, 0);
  const oldest = groups.map((g) => g.oldest).filter(Boolean).sort()[0];
  const top = groups.slice(0, 5);
  const f = figures || {};
  const failedByClass = Object.entries(f.failed_last_hour_by_class || {});
  return h('section', {class: 'queue-card', testid: 'queue-card', 'data-queue': name, id: 'queue-' + name},
    h('h2', {}, 'Queue ', h('code', {}, name), ' ', figures ? lineState(name, f) : null),
    figures && f.paused ? pausedBanner(name, f) : null,
    figures ? h('div', {class: 'figures', testid: 'send-figures'},
      // null while the database does not answer: unknown, shown as a dash, never as 0
      figure(f.sent_per_minute == null ? '—' : `${f.sent_per_minute}/min`, 'sent (last 5 minutes)', 'send-rate'),
      figure(f.accepted_last_hour ?? '—', 'accepted by the provider, last hour', 'accepted-last-hour'),
      h('div', {class: 'figure'}, h('div', {class: 'value', testid: 'failed-last-hour'}, f.failed_last_hour ?? '—'),
        h('div', {class: 'label'}, 'failed provider calls, last hour',
          failedByClass.length ? h('ul', {class: 'by-class', testid: 'failed-by-class'},
            failedByClass.map(([c, n]) => h('li', {'data-class': c}, `${c}: ${n}`))) : null)),
      figure(f.scheduled ?? '—', 'retry backlog (scheduled for later)', 'retry-backlog'),
      figure(f.in_flight ?? '—', 'in flight (being sent)', 'in-flight'),
      figure(f.depth == null ? '—' : h('a', {href: '#/waiting' + query({queue: name}), title: 'list the jobs waiting'}, f.depth),
        'waiting on the queue', 'depth')) : null,
    h('div', {class: 'figures'},
      figure(open, 'open dead letters', 'open-count'),
      h('div', {class: 'figure'}, h('div', {class: 'value', testid: 'oldest-age'}, oldest ? ageOf(oldest) : '—'),
        h('div', {class: 'label'}, 'age of the oldest open dead letter', oldest ? h('br') : null, oldest ? when(oldest) : null))),
    h('h3', {}, 'Dead-letter arrivals'),
    h('div', {testid: 'arrivals'}, !arrivals ? null : arrivals.error ? errorBox(arrivals.error, 'arrivals-error')
      : arrivalsChart(arrivals, bucket, name)),
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

/** Consuming or paused, and the button that changes it (an operator's; a viewer sees it disabled). */
function lineState(name, f) {
  return h('span', {class: 'line-state'},
    h('span', {class: `status status-${f.paused ? 'paused' : 'consuming'}`, testid: 'queue-state',
      'data-state': f.paused ? 'paused' : 'consuming'}, f.paused ? 'paused' : 'consuming'),
    f.paused ? null : confirmAction({name: 'queue-pause', label: 'Pause', buttonClass: 'secondary small',
      title: 'Stop the consumers of this queue: its jobs wait on the broker until resumed',
      question: `Why pause ${name}? Its jobs wait on the broker until someone resumes it.`,
      confirmLabel: `Pause ${name}`, onConfirm: (reason) => pauseQueue(name, reason)}));
}

async function pauseQueue(name, reason) {
  try {
    await post(`/queues/${encodeURIComponent(name)}/pause${query({reason})}`);
    flash(`Consumers of ${name} paused.`);
  } catch (err) {
    flash('Pausing failed: ' + err.message, true);
  }
  await refresh();
}

/** How long the console watches a resumed line before it says the resume held. */
export const RESUME_WATCH_MS = 5000;
const RESUME_POLL_MS = 200;

/**
 * Resumes the queue, then watches its line for {@link RESUME_WATCH_MS}: a line that stops again at once (the same
 * 535 as before) is said so, with what stopped it, instead of a success that is not one.
 */
async function resumeQueue(e, name) {
  e.target.disabled = true;
  const sent = Date.now();
  try {
    await post(`/queues/${encodeURIComponent(name)}/resume`);
  } catch (err) {
    flash('Resuming failed: ' + err.message, true);
    await refresh();
    return;
  }
  flash(`Resumed ${name}; watching whether it keeps consuming…`, 'info');
  const outcome = await watchLine(name, sent);
  if (outcome.stopped) {
    const f = outcome.figures;
    const seconds = (outcome.afterMs / 1000).toFixed(1);
    flash(`Resumed ${name} — stopped again after ${seconds} s: ${f.paused_latest_detail || f.paused_latest_reason || 'no reason given'}`
      + (f.paused_since ? ` (the same outage since ${new Date(f.paused_since).toLocaleTimeString()})` : ''), true);
  } else if (outcome.unknown) {
    flash(`Resumed ${name}, but its state could not be read since (${outcome.unknown}).`, true);
  } else {
    flash(`Consumers of ${name} resumed: still consuming after ${RESUME_WATCH_MS / 1000} s.`);
  }
  await refresh();
}

/** Polls the queue's line until it stops again or the watch ends. */
async function watchLine(name, sent) {
  const until = Date.now() + RESUME_WATCH_MS;
  let unknown = null;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, RESUME_POLL_MS));
    let f;
    try {
      f = (await get('/queues')).find((q) => q.queue === name);
      unknown = null;
    } catch (err) {
      unknown = err.message;
      continue;
    }
    if (f && (f.paused_reason || f.paused)) {
      const seen = Date.now();
      const stoppedAt = Math.min(seen, Date.parse(f.paused_latest_since) || seen);
      return {stopped: true, figures: f, afterMs: Math.max(0, stoppedAt - sent)};
    }
  }
  return {stopped: false, unknown};
}

/**
 * A stopped line: what began its outage and when, what holds it now (a restart that stopped again keeps the
 * outage's start), how many probes failed, and (for an operator) the button that starts it again.
 */
export function pausedBanner(name, figures) {
  const f = figures;
  const again = f.paused_latest_since && f.paused_since && f.paused_latest_since !== f.paused_since;
  return h('div', {class: 'paused-banner', testid: 'paused-banner', 'data-reason': f.paused_reason || '',
    'data-since': f.paused_since || '', 'data-latest-reason': f.paused_latest_reason || '',
    'data-failed-probes': f.failed_probes ?? ''},
    h('span', {class: 'status status-paused', testid: 'paused-badge'}, 'paused: ' + (f.paused_reason || 'by hand')),
    ' since ', f.paused_since ? h('span', {testid: 'paused-since'}, when(f.paused_since)) : '—',
    f.paused_detail ? h('div', {class: 'hint', testid: 'paused-detail'}, f.paused_detail) : null,
    again ? h('div', {testid: 'paused-latest'}, 'Latest: stopped again ', when(f.paused_latest_since),
      ` (${f.paused_latest_reason})`, f.paused_latest_detail ? `: ${f.paused_latest_detail}` : '') : null,
    f.failed_probes ? h('div', {testid: 'failed-probes'}, `${f.failed_probes} probe${f.failed_probes === 1 ? '' : 's'} `
      + 'failed in this outage (a restart that stopped again counts as one).') : null,
    h('p', {class: 'hint'}, 'Its jobs wait on the broker: nothing is dead-lettered and no retry is used. ',
      'A probe starts it again when the cause is gone; resume by hand once you have fixed it.'),
    h('button', actionAttrs({type: 'button', testid: 'queue-resume-button',
      onclick: (e) => resumeQueue(e, name)}), `Resume ${name}`));
}

// ------------------------------------------------------------------ the arrivals chart

/** Milliseconds of an ISO-8601 duration as the arrivals API takes them (PT5M, PT1H, P1D). */
export function durationMs(iso) {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(iso || '');
  if (!m) return NaN;
  return ((Number(m[1] || 0) * 24 + Number(m[2] || 0)) * 60 + Number(m[3] || 0)) * 60000;
}

/** About {@code n} round steps from 0 to at least {@code max}: 1, 2 or 5 times a power of ten. */
function ticks(max, n = 4) {
  const raw = Math.max(1, max) / n;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((k) => k * pow).find((s) => s >= raw));
  const top = Math.ceil(Math.max(1, max) / step) * step;
  const result = [];
  for (let v = 0; v <= top; v += step) result.push(v);
  return result;
}

const isoSeconds = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * Arrivals per bucket as bars stacked by reason (colours in the legend), with a y axis of round ticks and an x axis
 * of local times; each bar links to the dead-letter list of its queue and time bucket (from / to filters).
 */
export function arrivalsChart(buckets, bucket, queue) {
  const W = 800, H = 220, left = 56, right = 10, top = 10, bottom = 44;
  const size = durationMs(bucket);
  const total = buckets.reduce((n, b) => n + b.count, 0);
  const yTicks = ticks(Math.max(0, ...buckets.map((b) => b.count)));
  const yMax = yTicks[yTicks.length - 1];
  const plotH = H - top - bottom;
  const bw = (W - left - right) / Math.max(1, buckets.length);
  const y = (v) => top + plotH - plotH * v / yMax;
  const reasons = [...new Set(buckets.flatMap((b) => Object.keys(b.by_reason || {})))].sort();
  const chart = svg('svg', {class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', testid: 'arrivals-chart',
    'data-total': total, 'aria-label': `Dead-letter arrivals per ${bucket}: ${total} in total`});
  for (const v of yTicks) {
    chart.append(svg('line', {class: 'grid', x1: left, x2: W - right, y1: y(v), y2: y(v)}));
    chart.append(svg('text', {x: left - 4, y: y(v) + 3, 'text-anchor': 'end', class: 'tick', testid: 'y-tick'}, v));
  }
  const spanDays = buckets.length * size > 86400000;
  const label = new Intl.DateTimeFormat(undefined, spanDays
    ? {month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit'} : {hour: '2-digit', minute: '2-digit'});
  const every = Math.max(1, Math.ceil(buckets.length / 6));
  const unit = bucketWords(bucket);
  chart.append(svg('text', {class: 'axis-title', testid: 'y-axis-title', 'text-anchor': 'middle',
    transform: `translate(12 ${top + plotH / 2}) rotate(-90)`}, `dead letters per ${unit}`));
  chart.append(svg('text', {class: 'axis-title', testid: 'x-axis-title', x: left + (W - left - right) / 2, y: H - 4,
    'text-anchor': 'middle'}, `bucket start, ${timeZoneName()}`));
  buckets.forEach((b, i) => {
    const x = left + i * bw;
    if (i % every === 0) {
      chart.append(svg('line', {class: 'axis', x1: x, x2: x, y1: top + plotH, y2: top + plotH + 4}));
      // the first label starts at its tick and the last ends at it, so neither is cut off at the chart's edge
      const anchor = i === 0 ? 'start' : i + every >= buckets.length ? 'end' : 'middle';
      chart.append(svg('text', {x, y: top + plotH + 16, 'text-anchor': anchor, class: 'tick', testid: 'x-tick'},
        label.format(new Date(b.start))));
    }
    if (!b.count) return;
    const start = Date.parse(b.start);
    const from = isoSeconds(start), to = isoSeconds(start + size);
    const bar = svg('a', {href: '#/dead-letters' + query({queue, from, to}), class: 'bar', testid: 'arrivals-bar',
      'data-start': from, 'data-end': to, 'data-count': b.count});
    bar.append(svg('title', {}, `${label.format(new Date(start))}–${label.format(new Date(start + size))}: `
      + `${b.count} dead letters` + (reasons.length ? ' (' + Object.entries(b.by_reason || {}).map(([r, n]) => `${r} ${n}`).join(', ') + ')' : '')
      + ' — click to list them'));
    // the whole column is the link: a bucket of 1 beside one of 1,000 is a bar under a pixel high, still clicked
    bar.append(svg('rect', {class: 'hit', x, width: bw, y: top, height: plotH, fill: 'transparent'}));
    // stacked by reason, bottom up in legend order; a bucket without a breakdown is one plain bar
    let base = 0;
    const parts = reasons.length ? reasons.map((r) => [r, (b.by_reason || {})[r] || 0]) : [['all', b.count]];
    for (const [reason, n] of parts) {
      if (!n) continue;
      bar.append(svg('rect', {class: 'reason-' + reason, x: x + 0.5, width: Math.max(1, bw - 1), y: y(base + n),
        height: y(base) - y(base + n), 'data-reason': reason}));
      base += n;
    }
    chart.append(bar);
  });
  chart.append(svg('line', {class: 'axis', x1: left, x2: W - right, y1: top + plotH, y2: top + plotH}));
  chart.append(svg('line', {class: 'axis', x1: left, x2: left, y1: top, y2: top + plotH}));
  return h('div', {class: 'arrivals'}, chart,
    reasons.length ? h('ul', {class: 'legend', testid: 'arrivals-legend'},
      reasons.map((r) => h('li', {'data-reason': r}, h('span', {class: 'swatch reason-' + r}), r))) : null,
    h('p', {class: 'muted', testid: 'arrivals-total'}, `${total} dead letters arrived in this window`
      + ` (bars per ${unit}; times in ${timeZoneName()}).`));
}

/** "5 minutes", "hour", "6 hours", "day" for a bucket of the arrivals API (PT5M, PT1H, PT6H, P1D). */
export function bucketWords(iso) {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(iso || '');
  if (!m) return iso;
  const [n, word] = m[1] ? [Number(m[1]), 'day'] : m[2] ? [Number(m[2]), 'hour'] : [Number(m[3]), 'minute'];
  return n === 1 ? word : `${n} ${word}s`;
}

/** The browser's time zone by name and offset now: "Europe/Berlin, UTC+01:00". */
export function timeZoneName(date = new Date()) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
  const minutes = -date.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${zone}, UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
