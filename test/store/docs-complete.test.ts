/**
 * docs/data-model.md names every table and view the database has, and docs/exports.md every
 * dataset and the view behind it: a table or view added without its line fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DATASET_SPECS, DATASETS } from '../../src/export/datasets';
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
});
