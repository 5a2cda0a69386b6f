import { createHash } from 'node:crypto';

/** Roles the endpoint switches to, as on Supabase. */
export const API_ROLES = ['anon', 'authenticated', 'service_role'] as const;
/** One of the API roles. */
export type ApiRole = (typeof API_ROLES)[number];

/**
 * Idempotent setup, run at a start that finds another version of it applied (see SETUP_APPLIED): Supabase's roles, the `auth` helpers reading `request.jwt.claims`,
 * Supabase's default privileges on `public`, and a schema version bumped by an event trigger after every
 * DDL statement (in the DDL's own transaction, so a reader sees the version and the catalog of one snapshot).
 */
export const PROJECT_SETUP_SQL = `
do $$
begin
  if not exists (select from pg_roles where rolname = 'anon') then create role anon nologin noinherit; end if;
  if not exists (select from pg_roles where rolname = 'authenticated') then create role authenticated nologin noinherit; end if;
  if not exists (select from pg_roles where rolname = 'service_role') then create role service_role nologin noinherit bypassrls; end if;
  if not exists (select from pg_roles where rolname = 'authenticator') then create role authenticator login noinherit; end if;
end
$$;
grant anon, authenticated, service_role to authenticator;
do $$
begin
  if not (select rolsuper from pg_roles where rolname = current_user) then
    execute format('grant anon, authenticated, service_role to %I', current_user);
  end if;
end
$$;

create schema if not exists auth;
create or replace function auth.jwt() returns jsonb language sql stable as $f$
  select coalesce(nullif(current_setting('request.jwt.claim', true), ''), nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb
$f$;
create or replace function auth.uid() returns uuid language sql stable as $f$
  select nullif(coalesce(nullif(current_setting('request.jwt.claim.sub', true), ''), auth.jwt() ->> 'sub'), '')::uuid
$f$;
create or replace function auth.role() returns text language sql stable as $f$
  select coalesce(nullif(current_setting('request.jwt.claim.role', true), ''), auth.jwt() ->> 'role')
$f$;
grant usage on schema auth to anon, authenticated, service_role;
grant execute on all functions in schema auth to anon, authenticated, service_role;

grant usage on schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;

create schema if not exists svc_graphql;
revoke all on schema svc_graphql from public;
create table if not exists svc_graphql.meta (one boolean primary key default true check (one), schema_version bigint not null);
insert into svc_graphql.meta (schema_version) values (1) on conflict (one) do nothing;
create or replace function svc_graphql.bump_schema_version() returns event_trigger language plpgsql security definer
  set search_path = pg_catalog as $f$
begin
  update svc_graphql.meta set schema_version = schema_version + 1;
end
$f$;
do $$
begin
  if not exists (select from pg_event_trigger where evtname = 'svc_graphql_schema_changed') then
    create event trigger svc_graphql_schema_changed on ddl_command_end execute function svc_graphql.bump_schema_version();
  end if;
end
$$;
`;

/**
 * What the setup leaves as the comment of schema svc_graphql: a start that reads the same comment skips the
 * setup (a quarter of a cold start's time), and a new release's setup runs once.
 */
export const SETUP_APPLIED = `svc project setup ${createHash('sha256').update(PROJECT_SETUP_SQL).digest('hex').slice(0, 16)}`;

/** Reads the comment SETUP_APPLIED is compared with (null before the first setup). */
export const SETUP_APPLIED_QUERY = "select obj_description(to_regnamespace('svc_graphql'), 'pg_namespace') as applied";
