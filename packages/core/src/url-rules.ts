/**
 * The bank's URL rules (docs/bank-api.md §4.1 URL rules): redirect URIs against the whitelist
 * (BDT211, BDT212) and callback URLs (BDT264–268, public hosts only).
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { Environment, RuleFailure } from './consent-rules';

// ---------------------------------------------------------------------------
// Redirect URI whitelist (docs/bank-api.md §4.1 URL rules)

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** A URL with a host part (custom app schemes included); null when malformed or relative. */
function parseAbsoluteWithHost(value: string): URL | null {
  const url = parseUrl(value);
  if (!url || url.hostname === '') return null;
  return url;
}

/** A URL's parts exactly as written: no dot segments resolved, no percent-decoding, no default port dropped. */
interface RawUrl {
  scheme: string;
  userinfo: string;
  host: string;
  port: string;
  path: string;
}

// scheme "://" authority path [? query] [# fragment]; the query and fragment are dropped.
const RAW_URL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:[?#].*)?$/s;
const RAW_AUTHORITY = /^(?:(.*)@)?(\[[^\]]*\]|[^:]*)(?::(.*))?$/s;

/** The parts of `value` as written, or null when it has no `scheme://host` form. */
function splitRaw(value: string): RawUrl | null {
  const url = RAW_URL.exec(value);
  if (!url) return null;
  const [, scheme = '', authority = '', path = ''] = url;
  const parts = RAW_AUTHORITY.exec(authority);
  if (!parts) return null;
  const [, userinfo = '', host = '', port = ''] = parts;
  if (host === '') return null;
  return { scheme, userinfo, host: host.toLowerCase(), port, path };
}

/**
 * Does one whitelist entry match a candidate URI? Invalid entries match nothing.
 *
 * The bank's API documentation: a single-host entry "matches that path and any path that starts
 * with it as a raw string prefix"; "scheme, host and port match exactly; host comparison is
 * case-insensitive; query strings are ignored on both sides". So both sides are compared as
 * written, never as a URL parser normalises them: the scheme and the port as strings (an explicit
 * `:443` is not the absent port), the host lower-cased, the path a raw prefix (`/consent/./return`
 * and `/consent/%2E/return` do not start with `/consent/return`). docs/bank-api.md §4.1 URL rules.
 */
export function whitelistEntryMatches(entry: string, candidate: string): boolean {
  const e = splitRaw(entry.trim());
  const c = splitRaw(candidate);
  if (!e || !c) return false;
  if (e.scheme !== c.scheme || e.port !== c.port || e.userinfo !== c.userinfo) return false;
  // A registered trailing slash makes the slash-less form fail: a raw prefix, nothing more.
  if (!c.path.startsWith(e.path)) return false;
  const entryHost = e.host;
  const host = c.host;
  if (entryHost.includes('*')) {
    // Wildcard: one `*.` at the start; the domain after it has at least two labels.
    if (!entryHost.startsWith('*.')) return false;
    const domain = entryHost.slice(2);
    if (
      domain.includes('*') ||
      domain.split('.').filter(Boolean).length < 2 ||
      domain.split('.').some((l) => l === '')
    ) {
      return false;
    }
    // Any depth of subdomain, never the bare domain.
    return host.endsWith(`.${domain}`) && host.length > domain.length + 1;
  }
  return host === entryHost;
}

export type RedirectCode = 'BDT212' | 'BDT211';

/** BDT212 when malformed, relative or host-less; BDT211 when no whitelist entry matches. */
export function checkRedirectUri(
  uri: string,
  whitelist: readonly string[],
  environment: Environment,
): RuleFailure<RedirectCode> | null {
  const url = parseAbsoluteWithHost(uri);
  if (!url) return { code: 'BDT212', message: `redirect_uri is malformed or not absolute: ${uri}` };
  if (environment === 'production' && (url.protocol === 'http:' || isLocalhostName(url.hostname))) {
    return { code: 'BDT211', message: `redirect_uri not allowed in production (http or localhost): ${uri}` };
  }
  if (!whitelist.some((entry) => whitelistEntryMatches(entry, uri))) {
    return { code: 'BDT211', message: `redirect_uri is not whitelisted: ${uri}` };
  }
  return null;
}

function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost');
}

// ---------------------------------------------------------------------------
// Callback URL rules (BDT264–268)

const nonPublic = new BlockList();
nonPublic.addSubnet('0.0.0.0', 8, 'ipv4'); // unspecified
nonPublic.addSubnet('127.0.0.0', 8, 'ipv4'); // loopback
nonPublic.addSubnet('10.0.0.0', 8, 'ipv4'); // private
nonPublic.addSubnet('172.16.0.0', 12, 'ipv4');
nonPublic.addSubnet('192.168.0.0', 16, 'ipv4');
nonPublic.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local
nonPublic.addAddress('::', 'ipv6'); // unspecified
nonPublic.addAddress('::1', 'ipv6'); // loopback
nonPublic.addSubnet('fc00::', 7, 'ipv6'); // unique local (private)
nonPublic.addSubnet('fe80::', 10, 'ipv6'); // link-local

/** An IP literal in a loopback, private, link-local or unspecified range. */
export function isNonPublicIp(address: string): boolean {
  if (isIPv4(address)) return nonPublic.check(address, 'ipv4');
  if (isIPv6(address)) {
    const lower = address.toLowerCase();
    // IPv4-mapped (::ffff:a.b.c.d or ::ffff:7f00:1): judge the IPv4 address inside.
    const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(lower);
    if (mapped) {
      const [, dotted, high = '', low = ''] = mapped;
      const v4 = dotted ?? hexPairToIpv4(high, low);
      return nonPublic.check(v4, 'ipv4');
    }
    return nonPublic.check(lower, 'ipv6');
  }
  return false;
}

function hexPairToIpv4(hi: string, lo: string): string {
  const a = parseInt(hi, 16);
  const b = parseInt(lo, 16);
  return [a >> 8, a & 255, b >> 8, b & 255].join('.');
}

/** "Public" per docs/bank-api.md §4.1: not localhost/.localhost/.local/.internal, not a non-public IP. */
export function isPublicHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal')) return false;
  return !isNonPublicIp(h);
}

/** The emulator's fixed resolver: every name resolves except under the reserved `.invalid`. */
export function resolvesInEmulator(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return !(h === 'invalid' || h.endsWith('.invalid'));
}

export type CallbackCode = 'BDT264' | 'BDT265' | 'BDT266' | 'BDT267' | 'BDT268';

/**
 * callback_url rules. BDT268 (unresolvable) is judged only when a resolver is given:
 * the client leaves it to the server.
 */
export function checkCallbackUrl(
  value: string,
  environment: Environment,
  resolves?: (hostname: string) => boolean,
): RuleFailure<CallbackCode> | null {
  const url = parseUrl(value);
  if (!url) return { code: 'BDT264', message: `callback_url is malformed: ${value}` };
  // A well-formed URL of another scheme (`mailto:`, host-less) is BDT265, not malformed.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { code: 'BDT265', message: `callback_url scheme must be http or https: ${url.protocol}` };
  }
  if (environment === 'production' && url.protocol === 'http:') {
    return { code: 'BDT266', message: 'callback_url must use https in production' };
  }
  if (!isPublicHost(url.hostname)) {
    return { code: 'BDT267', message: `callback_url host is not public: ${url.hostname}` };
  }
  if (resolves && !resolves(url.hostname)) {
    return { code: 'BDT268', message: `callback_url host does not resolve: ${url.hostname}` };
  }
  return null;
}
