/**
 * The redirect whitelist matcher's table (docs/bank-api.md §4.1 URL rules, a case per sentence):
 * [entry, candidate, matches, why]. packages/core/test/rules.test.ts holds the matcher to it, and
 * test/api/consent-checks.test.ts sends each case to the emulator (the server agrees).
 */
export const WHITELIST_CASES: Array<[string, string, boolean, string]> = [
  // 2. single host: that path and any path starting with it as a raw string prefix
  ['https://app.example.nz/cb', 'https://app.example.nz/cb', true, 'exact path'],
  ['https://app.example.nz/cb', 'https://app.example.nz/cb/done', true, 'longer path'],
  ['https://app.example.nz/cb', 'https://app.example.nz/cbx', true, 'raw string prefix, not segment'],
  ['https://app.example.nz/cb', 'https://app.example.nz/c', false, 'shorter path'],
  ['https://app.example.nz/cb', 'https://other.example.nz/cb', false, 'other host'],
  // 2. wildcard subdomain: any depth, not the bare domain
  ['https://*.example.nz/cb', 'https://a.example.nz/cb', true, 'one level'],
  ['https://*.example.nz/cb', 'https://a.b.c.example.nz/cb/x', true, 'any depth'],
  ['https://*.example.nz/cb', 'https://example.nz/cb', false, 'bare domain'],
  ['https://*.example.nz/cb', 'https://evilexample.nz/cb', false, 'suffix without a dot'],
  ['https://*.example.nz/cb', 'https://a.example.nz/other', false, 'wildcard path prefix still applies'],
  // 3. scheme, host and port exact; host case-insensitive; queries ignored; trailing slash
  ['https://app.example.nz/cb', 'http://app.example.nz/cb', false, 'scheme differs'],
  ['https://app.example.nz/cb', 'https://app.example.nz:8443/cb', false, 'port differs'],
  ['https://app.example.nz:8443/cb', 'https://app.example.nz:8443/cb', true, 'same port'],
  ['https://app.example.nz/cb', 'https://app.example.nz:443/cb', false, 'an explicit :443 is not the absent port'],
  ['https://app.example.nz:443/cb', 'https://app.example.nz/cb', false, 'the absent port is not a registered :443'],
  ['https://app.example.nz:443/cb', 'https://app.example.nz:443/cb/x', true, 'a registered :443 matches as written'],
  ['https://APP.Example.nz/cb', 'https://app.example.NZ/cb', true, 'host case-insensitive'],
  ['https://app.example.nz/CB', 'https://app.example.nz/cb', false, 'path case-sensitive'],
  ['https://app.example.nz/cb?x=1', 'https://app.example.nz/cb?y=2', true, 'queries ignored on both sides'],
  ['https://app.example.nz/cb/', 'https://app.example.nz/cb', false, 'registered trailing slash: slash-less fails'],
  ['https://app.example.nz/cb/', 'https://app.example.nz/cb/', true, 'trailing slash form matches'],
  // 4. wildcard rules
  ['https://*.nz/cb', 'https://a.nz/cb', false, 'domain after *. needs two labels'],
  ['https://a.*.example.nz/cb', 'https://a.b.example.nz/cb', false, '* only at the start'],
  ['https://**.example.nz/cb', 'https://a.example.nz/cb', false, 'a single *. prefix'],
  ['https://*.*.example.nz/cb', 'https://a.b.example.nz/cb', false, 'only one *'],
  // 5. custom app schemes with a host part
  ['myapp://callback/done', 'myapp://callback/done', true, 'custom scheme with host'],
  ['myapp://callback/done', 'myapp://CALLBACK/done/x', true, 'custom scheme host case-insensitive, prefix'],
  ['myapp://callback/done', 'otherapp://callback/done', false, 'custom scheme exact'],
  // Added with issue 6: the rest of each sentence.
  ['https://app.example.nz/cb', 'https://app.example.nz/cb?state=1', true, 'query on the candidate only is ignored'],
  ['https://app.example.nz/cb?x=1', 'https://app.example.nz/cb', true, 'query on the entry only is ignored'],
  ['https://*.Example.NZ/cb', 'https://A.example.nz/cb', true, 'wildcard host case-insensitive'],
  ['https://*.example.nz:8443/cb', 'https://a.example.nz/cb', false, 'wildcard port exact'],
  ['https://*.example.nz:8443/cb', 'https://a.example.nz:8443/cb/x', true, 'wildcard same port, longer path'],
  ['https://*.example.nz/cb', 'http://a.example.nz/cb', false, 'wildcard scheme exact'],
  [
    'https://*.example.nz/cb/',
    'https://a.example.nz/cb',
    false,
    'wildcard registered trailing slash: slash-less fails',
  ],
  ['https://*.example.nz/cb', 'https://a.example.nz/cbx', true, 'wildcard path is the same raw string prefix'],
  ['https://*.co.nz/cb', 'https://shop.co.nz/cb', true, 'two labels after *. are enough'],
  ['https://*.example.nz/cb', 'https://a.b.example.nz.evil.io/cb', false, 'the domain must end the host'],
  ['myapp:/done', 'myapp:/done', false, 'a custom scheme without a host matches nothing'],
  ['http://localhost:3000/cb', 'http://localhost:3000/cb/x', true, 'http and localhost entries match (sandbox)'],
  // Added with issue 32: compared as written, never normalised by a URL parser. The bank's API
  // documentation: a single-host entry "matches that path and any path that starts with it as a raw
  // string prefix"; "Scheme, host and port match exactly". Stricter than WHATWG parsing, which
  // resolves dot segments and drops a default port before comparing.
  [
    'https://app.example.nz/consent/return',
    'https://app.example.nz/consent/./return',
    false,
    'a dot segment is not resolved',
  ],
  [
    'https://app.example.nz/consent/return',
    'https://app.example.nz/consent/x/../return',
    false,
    'a double-dot segment is not resolved',
  ],
  [
    'https://app.example.nz/consent/return',
    'https://app.example.nz/consent/%2E/return',
    false,
    'a percent-encoded dot is not decoded',
  ],
  [
    'https://app.example.nz/consent/return',
    'https://app.example.nz/consent/%2e%2e/consent/return',
    false,
    'percent-encoded dots are not decoded',
  ],
  [
    'https://app.example.nz/consent/return',
    'https://app.example.nz/consent/%72eturn',
    false,
    'a percent-encoded letter is not decoded',
  ],
  [
    'https://app.example.nz/consent/%7Eme',
    'https://app.example.nz/consent/%7Eme/x',
    true,
    'an encoded entry matches the same encoding',
  ],
  [
    'https://app.example.nz/consent/%7Eme',
    'https://app.example.nz/consent/~me',
    false,
    'an encoded entry does not match the decoded form',
  ],
  [
    'https://app.example.nz/consent/return',
    'https://app.example.nz/consent/return/../../evil',
    true,
    'dot segments after the prefix stay part of the raw path',
  ],
  ['https://app.example.nz/cb', 'https://app.example.nz\\cb', false, 'a backslash is not read as a slash'],
  ['https://app.example.nz/cb', 'HTTPS://app.example.nz/cb', false, 'the scheme is compared as written'],
  ['https://app.example.nz/cb', 'https://user@app.example.nz/cb', false, 'userinfo is not dropped'],
  [
    'https://app.example.nz/cb',
    'https://app.example.nz/cb#frag',
    true,
    'a fragment, like the query, is not part of the path',
  ],
];
