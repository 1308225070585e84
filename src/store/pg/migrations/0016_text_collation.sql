-- Every text column compares and sorts byte by byte (COLLATE "C"), as SQLite does
-- (docs/postgres.md "Schema"). The tables of migrations 0008, 0010, 0011, 0013 and 0014 (pacing,
-- alerts, transaction_categories, duplicate_suspicions, change_log and their kin) kept the
-- cluster's default collation, so on a cluster created with another locale v_duplicates and the
-- category of v_transactions sorted by that locale. This gives every text column of every table
-- that lacks it COLLATE "C". A column a view or a trigger's condition reads cannot change type,
-- so the schema's views and the triggers of its tables are dropped first and made again
-- afterwards from their own definitions, the views with their options and grants and the
-- triggers on them (INSTEAD OF) after them. A view of another schema or a materialized view that
-- reads these views would be lost with them: the migration stops and names it instead.
DO $$
DECLARE
  col record;
  v record;
  g record;
  made integer;
  others text;
BEGIN
  SELECT string_agg(DISTINCT dep.oid::regclass::text, ', ') INTO others
  FROM pg_depend d
  JOIN pg_rewrite r ON r.oid = d.objid
  JOIN pg_class dep ON dep.oid = r.ev_class
  JOIN pg_class ref ON ref.oid = d.refobjid
  WHERE d.classid = 'pg_rewrite'::regclass AND d.refclassid = 'pg_class'::regclass
    AND ref.relkind = 'v' AND ref.relnamespace = current_schema()::regnamespace
    AND dep.oid <> ref.oid
    AND NOT (dep.relkind = 'v' AND dep.relnamespace = current_schema()::regnamespace);
  IF others IS NOT NULL THEN
    RAISE EXCEPTION 'these read bankdata''s views, which this migration makes again: %', others
      USING HINT = 'drop them, run bankdata db migrate, then create them again';
  END IF;
  CREATE TEMP TABLE collation_views ON COMMIT DROP AS
    SELECT c.relname::text AS name, pg_get_viewdef(c.oid) AS definition, c.relacl AS acl,
           array_to_string(c.reloptions, ', ') AS options
    FROM pg_class c
    WHERE c.relkind = 'v' AND c.relnamespace = current_schema()::regnamespace;
  CREATE TEMP TABLE collation_triggers ON COMMIT DROP AS
    SELECT t.tgname::text AS name, c.relname::text AS table_name, pg_get_triggerdef(t.oid) AS definition,
           c.relkind = 'v' AS on_view
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace;
  FOR v IN SELECT name FROM collation_views LOOP
    EXECUTE format('DROP VIEW IF EXISTS %I CASCADE', v.name);
  END LOOP;
  FOR v IN SELECT name, table_name FROM collation_triggers WHERE NOT on_view LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', v.name, v.table_name);
  END LOOP;
  FOR col IN
    SELECT c.table_name, c.column_name
    FROM information_schema.columns c
    JOIN information_schema.tables t
      ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
    WHERE c.table_schema = current_schema() AND c.data_type = 'text'
      AND c.collation_name IS DISTINCT FROM 'C'
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE text COLLATE "C"', col.table_name, col.column_name);
  END LOOP;
  FOR v IN SELECT definition FROM collation_triggers WHERE NOT on_view LOOP
    EXECUTE v.definition;
  END LOOP;
  -- A view may read another: each is made once those it reads exist again.
  LOOP
    made := 0;
    FOR v IN SELECT name, definition, acl, options FROM collation_views ORDER BY name LOOP
      BEGIN
        EXECUTE format('CREATE VIEW %I%s AS %s', v.name,
          CASE WHEN v.options IS NULL OR v.options = '' THEN '' ELSE format(' WITH (%s)', v.options) END,
          v.definition);
        FOR g IN SELECT a.grantee, a.privilege_type, a.is_grantable FROM aclexplode(v.acl) a
          WHERE a.grantee <> (SELECT c.relowner FROM pg_class c
                              WHERE c.relname = v.name AND c.relnamespace = current_schema()::regnamespace)
        LOOP
          EXECUTE format('GRANT %s ON %I TO %s%s', g.privilege_type, v.name,
            CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE g.grantee::regrole::text END,
            CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
        END LOOP;
        DELETE FROM collation_views WHERE name = v.name;
        made := made + 1;
      EXCEPTION WHEN undefined_table THEN
        NULL;
      END;
    END LOOP;
    EXIT WHEN NOT EXISTS (SELECT 1 FROM collation_views);
    IF made = 0 THEN
      RAISE EXCEPTION 'views not made again: %', (SELECT string_agg(name, ', ') FROM collation_views);
    END IF;
  END LOOP;
  FOR v IN SELECT definition FROM collation_triggers WHERE on_view LOOP
    EXECUTE v.definition;
  END LOOP;
END $$;
