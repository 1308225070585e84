-- Every text column compares and sorts byte by byte (COLLATE "C"), as SQLite does
-- (docs/postgres.md "Schema"). The tables of migrations 0008, 0010, 0011, 0013 and 0014 (pacing,
-- alerts, transaction_categories, duplicate_suspicions, change_log and their kin) kept the
-- cluster's default collation, so on a cluster created with another locale v_duplicates and the
-- category of v_transactions sorted by that locale. This gives every text column of every table
-- that lacks it COLLATE "C". A column a view or a trigger's condition reads cannot change type,
-- so the schema's views and triggers are dropped first and made again afterwards from their own
-- definitions, the views with their grants.
DO $$
DECLARE
  col record;
  v record;
  g record;
  made integer;
BEGIN
  CREATE TEMP TABLE collation_views ON COMMIT DROP AS
    SELECT c.relname::text AS name, pg_get_viewdef(c.oid) AS definition, c.relacl AS acl
    FROM pg_class c
    WHERE c.relkind = 'v' AND c.relnamespace = current_schema()::regnamespace;
  CREATE TEMP TABLE collation_triggers ON COMMIT DROP AS
    SELECT t.tgname::text AS name, c.relname::text AS table_name, pg_get_triggerdef(t.oid) AS definition
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace;
  FOR v IN SELECT name FROM collation_views LOOP
    EXECUTE format('DROP VIEW IF EXISTS %I CASCADE', v.name);
  END LOOP;
  FOR v IN SELECT name, table_name FROM collation_triggers LOOP
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
  FOR v IN SELECT definition FROM collation_triggers LOOP
    EXECUTE v.definition;
  END LOOP;
  -- A view may read another: each is made once those it reads exist again.
  LOOP
    made := 0;
    FOR v IN SELECT name, definition, acl FROM collation_views ORDER BY name LOOP
      BEGIN
        EXECUTE format('CREATE VIEW %I AS %s', v.name, v.definition);
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
END $$;
