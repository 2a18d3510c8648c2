import { errorMessage } from '../../platform/errors';
import type { CouplingStore } from '../../twoway/coupling-store';
import { escapeHtml as e, formatTime } from './html';
import type { ConflictStatus, StatusModel } from './status-model';

/** Conflicts shown on the page; the rest are counted (`highwater conflicts list` shows all). */
const SHOWN = 50;

/** The parked conflicts for the status model, oldest first; a read failure is reported, not thrown. */
export async function conflictStatuses(couplings: Pick<CouplingStore, 'listConflicts'> | undefined): Promise<Pick<StatusModel, 'conflicts' | 'conflictsError'>> {
  if (!couplings) return { conflicts: [] };
  try {
    const all = await couplings.listConflicts();
    const conflicts = all
      .map(
        (c): ConflictStatus => ({
          pair: c.pair,
          keyA: c.keyA,
          keyB: c.keyB,
          fields: c.fields,
          a: { values: c.a.values, tracker: c.a.tracker, deleted: c.a.deleted === true },
          b: { values: c.b.values, tracker: c.b.tracker, deleted: c.b.deleted === true },
          detectedAt: c.detectedAt,
          resolution: c.resolution ?? null,
        }),
      )
      .sort((x, y) => x.detectedAt.localeCompare(y.detectedAt));
    return { conflicts };
  } catch (err) {
    return { conflicts: [], conflictsError: `parked conflicts not readable: ${errorMessage(err)}` };
  }
}

/** The page's section of parked conflicts; shown only when there are any (or they could not be read). */
export function conflictsSection(model: Pick<StatusModel, 'conflicts' | 'conflictsError'>): string {
  if (model.conflictsError) return `<section id="conflicts" class="problem"><h2>Two-way conflicts</h2><p>${e(model.conflictsError)}</p></section>`;
  if (model.conflicts.length === 0) return '';
  // A side's record as its job reads it (in the other side's field names), or that it is gone.
  const version = (v: ConflictStatus['a']) => (v.deleted ? '<em>deleted</em>' : e(JSON.stringify(v.values)));
  const rows = model.conflicts.slice(0, SHOWN).map(
    (c) => `<tr data-conflict="${e(c.pair)}|${e(c.keyA)}"><td>${e(c.pair)}</td><td>${e(c.keyA)}${c.keyB !== c.keyA ? ` ↔ ${e(c.keyB)}` : ''}</td><td>${e(c.fields.join(', '))}</td>
<td>${version(c.a)}<div class="muted">${e(c.a.tracker ?? '')}</div></td><td>${version(c.b)}<div class="muted">${e(c.b.tracker ?? '')}</div></td>
<td>${e(formatTime(c.detectedAt))}</td><td>${c.resolution ? `side ${c.resolution} chosen, applied at the next sync` : `<code>highwater conflicts resolve ${e(c.pair)} ${e(c.keyA)} --take a|b</code>`}</td></tr>`,
  );
  const more = model.conflicts.length > SHOWN ? `<p class="muted">${model.conflicts.length - SHOWN} more: <code>highwater conflicts list</code></p>` : '';
  return `<section id="conflicts" class="problem"><h2>Two-way conflicts (${model.conflicts.length})</h2><p>Both sides changed these fields since they were last in sync, and the pair's policy leaves the choice to a person. The other fields of these records still sync.</p><table>
<thead><tr><th>Pair</th><th>Record</th><th>Fields</th><th>Side a</th><th>Side b</th><th>Since</th><th>Resolve</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>${more}</section>`;
}
