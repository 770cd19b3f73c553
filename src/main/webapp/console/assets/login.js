// The console's login page: POST /api/v1/session, keep the CSRF token for this tab, go to the console.
const API = new URL('../api/v1', location.href).pathname;
const form = document.getElementById('login-form');
const error = document.getElementById('login-error');

function next() {
  const n = new URLSearchParams(location.search).get('next') || '';
  // only a hash route of the console itself, never another page
  return 'index.html' + (n.startsWith('#/') ? n : '#/');
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  error.hidden = true;
  const button = document.getElementById('login-submit');
  button.disabled = true;
  button.textContent = 'Signing in…';
  try {
    const r = await fetch(API + '/session', {
      method: 'POST',
      credentials: 'same-origin',
      headers: {'Content-Type': 'application/json', 'Accept': 'application/json', 'X-Mailroom-Console': '1'},
      body: JSON.stringify({username: form.username.value, password: form.password.value}),
    });
    const body = await r.json().catch(() => ({}));
    if (r.ok && body.csrf_token) {
      sessionStorage.setItem('mailroom.csrf', body.csrf_token);
      location.replace(next());
      return;
    }
    error.textContent = r.status === 401
      ? 'Wrong user name or password.'
      : `Sign-in failed (HTTP ${r.status}${body.reason ? ': ' + body.reason : ''}).`;
  } catch (e) {
    error.textContent = 'Mailroom did not answer: ' + e.message;
  }
  error.hidden = false;
  button.disabled = false;
  button.textContent = 'Sign in';
});
