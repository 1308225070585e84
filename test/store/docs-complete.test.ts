/**
 * docs/data-model.md names every table and view the database has, and docs/exports.md every
 * dataset and the view behind it, and the public views that have none: a table or view added
 * without its line fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DATASET_SPECS, DATASETS } from '../../src/export/datasets';
import { VIEW_NAMES } from '../../src/store/views';
import { freshStore } from './helpers';

const doc = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

describe('the docs list what exists', () => {
  it('docs/data-model.md names every table and view of the database', async () => {
    const store = await freshStore();
    const names = (
      store.sqlite
        .prepare(
          "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
        )
        .all() as { name: string }[]
    ).map((r) => r.name);
    expect(names.length).toBeGreaterThan(20);
    const text = doc('data-model.md');
    expect(names.filter((n) => !text.includes(`\`${n}\``))).toEqual([]);
  });

  it('docs/exports.md names every dataset and its view', () => {
    const text = doc('exports.md');
    for (const dataset of DATASETS) expect(text).toContain(`| \`${dataset}\` | \`${DATASET_SPECS[dataset].view}\` |`);
  });

  it('docs/exports.md names the public views without a dataset, and only those', () => {
    const text = doc('exports.md');
    const paragraph = text.slice(text.indexOf('The public views without a dataset'));
    const named = [...paragraph.slice(0, paragraph.indexOf('\n\n')).matchAll(/`(v_[a-z_]+)`/g)].map((m) => m[1]);
    const exported = new Set(DATASETS.map((d) => DATASET_SPECS[d].view));
    expect(named.length).toBeGreaterThan(0);
    expect([...new Set(named)].sort()).toEqual(VIEW_NAMES.filter((v) => !exported.has(v)).sort());
  });
});
