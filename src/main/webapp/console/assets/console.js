// Mailroom console: plain ES modules, no framework, no build step. Hash routes:
//   #/?range=24:PT1H        live dashboard per queue (range: of the arrival charts)
//   #/dead-letters?...      filtered list
//   #/dead-letters/{id}     one dead letter: envelope, stack trace, attempts, timeline, payload; actions
//   #/groups                open failure groups
//   #/jobs?...              find jobs (recipient, ids, campaign, tenant, state, time)
//   #/jobs/{message_id}?queue=&list=   one job: state, attempts, timeline, recipients' delivery state
//   #/waiting?queue=        the jobs waiting on the broker for a queue (browsed, never taken)
//   #/redrives              recent redrives
//   #/redrives/new?...      plan a redrive (dry run)
//   #/redrives/{id}         review a plan, run it, watch it, read its recovery record
//   #/suppressions?...      the suppression list: filter, add, lift (suppressions.js)
//   #/keys?queue=           the held ordering keys; release one (keys.js)
// Every request carries X-Mailroom-Console: 1; every write also X-CSRF-Token. A 401 goes to login.html.
// This module only routes; each page lives in its own module (dashboard.js, deadletters.js, redrives.js) and
// everything they share (DOM helpers, formatting, the API client, filter forms) in core.js.

import {state, h, view, render, flash, when, canAct, api, get, errorBox} from './core.js';
import {dashboard} from './dashboard.js';
import {deadLetterList, deadLetterDetail} from './deadletters.js';
import {redriveList, redrivePlanForm, redrivePage} from './redrives.js';
import {groupList} from './groups.js';
import {jobList, jobPage, waitingList} from './jobs.js';
import {suppressionList} from './suppressions.js';
import {heldKeys} from './keys.js';

// ------------------------------------------------------------------ routing

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
    if (parts.length === 0) return await dashboard(seq, params);
    if (parts[0] === 'dead-letters' && parts.length === 1) return await deadLetterList(params, seq);
    if (parts[0] === 'dead-letters' && parts.length === 2) return await deadLetterDetail(parts[1], seq);
    if (parts[0] === 'groups' && parts.length === 1) return await groupList(params, seq);
    if (parts[0] === 'jobs' && parts.length === 1) return await jobList(params, seq);
    if (parts[0] === 'jobs' && parts.length === 2) return await jobPage(decodeURIComponent(parts[1]), params, seq);
    if (parts[0] === 'waiting' && parts.length === 1) return await waitingList(params, seq);
    if (parts[0] === 'redrives' && parts.length === 1) return await redriveList(seq);
    if (parts[0] === 'redrives' && parts[1] === 'new') return await redrivePlanForm(params, seq);
    if (parts[0] === 'redrives' && parts.length === 2) return await redrivePage(parts[1], seq);
    if (parts[0] === 'suppressions' && parts.length === 1) return await suppressionList(params, seq);
    if (parts[0] === 'keys' && parts.length === 1) return await heldKeys(params, seq);
    view(h('h1', {}, 'Not found'), h('p', {}, 'No console page at ', hash, '. '), h('a', {href: '#/'}, 'Go to the dashboard'));
  } catch (e) {
    if (e.status === 401) return;
    render(seq, h('h1', {}, 'Something failed'), errorBox(e));
  }
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
