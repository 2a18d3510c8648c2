/**
 * The status page's only script (inlined, plain ES2020, no build): "run now" buttons call
 * `POST /api/jobs/{name}/execute` and show the answer; the page's `<main>` is refreshed from the
 * server every few seconds (paused while the tab is hidden) and after each run.
 */
export function statusScript(refreshMs: number): string {
  return `(() => {
  const status = document.getElementById('action-status');
  let refreshing = false;
  async function refresh() {
    if (refreshing) return;
    refreshing = true;
    try {
      const res = await fetch(location.pathname + location.search, { headers: { accept: 'text/html' } });
      if (!res.ok) return;
      const next = new DOMParser().parseFromString(await res.text(), 'text/html').querySelector('main');
      const current = document.querySelector('main');
      if (next && current) current.replaceWith(next);
    } catch (err) {
      // The host may be restarting: try again on the next tick.
    } finally {
      refreshing = false;
    }
  }
  document.addEventListener('click', async (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-run-job]') : null;
    if (!button) return;
    const job = button.getAttribute('data-run-job');
    button.disabled = true;
    status.textContent = 'Running ' + job + '…';
    status.className = '';
    try {
      const res = await fetch('/api/jobs/' + encodeURIComponent(job) + '/execute', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
      });
      const body = await res.json();
      if (body.outcome) {
        status.textContent = job + ': ' + body.outcome + ', ' + body.detected + ' detected, ' + body.sent + ' sent' + (body.error ? ' (' + body.error + ')' : '');
        status.className = body.outcome;
      } else {
        status.textContent = job + ': ' + ((body.error && body.error.message) || res.status);
        status.className = 'Failed';
      }
    } catch (err) {
      status.textContent = job + ': ' + err;
      status.className = 'Failed';
    } finally {
      button.disabled = false;
      await refresh();
    }
  });
  setInterval(() => { if (!document.hidden) refresh(); }, ${Math.max(1000, Math.round(refreshMs))});
})();`;
}
