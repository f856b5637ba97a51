// The environment, read once into one typed, frozen Config. Every default lives here and
// only here; the README table is checked against `variables` by a test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { THREAD_POOL_DEFAULT } from './threadpool.ts';
import {
  ConfigError,
  bool,
  custom,
  dir,
  failVariable,
  groupMap,
  int,
  intOr,
  list,
  oneOf,
  optionalStr,
  size,
  str,
  url,
  type DefaultsContext,
  type Env,
  type Variable,
} from './config/variables.ts';

export { ConfigError, parseSize } from './config/variables.ts';

const MB = 1024 ** 2;
const GB = 1024 ** 3;

const toBool = (v: string | undefined) => v !== undefined && /^(true|1|yes|on)$/i.test(v.trim());

/** The variables, grouped the way the Config object is. */
export const variables = {
  server: {
    port: int('PORT', 3000, 'HTTP port (0 picks a free one).', 0, 65535),
    host: str('HOST', '0.0.0.0', '0.0.0.0', 'Address to listen on; 127.0.0.1 keeps Burrow to this computer.'),
    publicUrl: url(
      'PUBLIC_URL',
      'Public address (https://files.example.org). Used for share links, OIDC callbacks and the Secure cookie flag.',
    ),
    allowedHosts: list(
      'ALLOWED_HOSTS',
      [],
      '',
      "More host names Burrow answers for (comma separated), besides its addresses, localhost, this computer's name, `NAME.local` and PUBLIC_URL's host; requests for any other name are refused (DNS rebinding).",
    ),
    trustProxy: str(
      'TRUST_PROXY',
      'false',
      'false',
      'Which peers may set X-Forwarded-For: false, true, loopback, a hop count, or a comma list of addresses/CIDRs.',
    ),
    logLevel: oneOf(
      'LOG_LEVEL',
      ['debug', 'info', 'warn', 'error'] as const,
      'info',
      'Lowest level written to the JSON log.',
    ),
    threadPool: int(
      'UV_THREADPOOL_SIZE',
      THREAD_POOL_DEFAULT,
      "Threads for disk work (libuv's pool, read when it starts): each upload's writes and flush hold one, so with Node's default of 4 a zip, a listing or a download waited behind a few uploads.",
      1,
      1024,
    ),
  },
  tls: {
    httpsPort: custom(
      'HTTPS_PORT',
      '3443 (0 when PORT is 0)',
      'HTTPS port beside the HTTP one (0 picks a free one; `off` serves HTTP only). Its certificate comes from a certificate authority Burrow makes in CONFIG_DIR (tls/) unless TLS_CERT and TLS_KEY are given.',
      (v, _c, env) => {
        if (v === undefined) return (env.PORT?.trim() === '0' ? 0 : 3443) as number | null;
        if (/^(off|false|no)$/i.test(v)) return null;
        if (!/^\d+$/.test(v) || Number(v) > 65535) failVariable('HTTPS_PORT', v, 'a port from 0 to 65535, or off');
        return Number(v);
      },
    ),
    cert: custom(
      'TLS_CERT',
      '',
      'A PEM certificate (chain) for HTTPS instead of the generated one, with TLS_KEY; read again when the file changes (no restart).',
      (v, _c, env) => {
        if ((v === undefined) !== (env.TLS_KEY?.trim() ? false : true))
          throw new ConfigError('TLS_CERT and TLS_KEY go together: set both, or neither.');
        return v === undefined ? null : path.resolve(v);
      },
    ),
    key: custom('TLS_KEY', '', "TLS_CERT's private key (PEM).", (v) => (v === undefined ? null : path.resolve(v))),
  },
  mdns: {
    enabled: custom(
      'MDNS_ENABLED',
      'true (false when HOST is a loopback address)',
      'Announce Burrow on the local network by multicast DNS: `MDNS_NAME.local` and its web and WebDAV services, so devices open https://burrow.local:3443/.',
      (v, _c, env) => {
        if (v === undefined) return !/^(127\.|::1$|localhost$)/i.test(env.HOST?.trim() ?? '');
        if (/^(true|1|yes|on)$/i.test(v)) return true;
        if (/^(false|0|no|off)$/i.test(v)) return false;
        failVariable('MDNS_ENABLED', v, 'true or false');
      },
    ),
    name: custom(
      'MDNS_NAME',
      'burrow',
      'The name announced, without `.local`; when another device has it, Burrow takes `NAME-2`, `NAME-3`, ….',
      (v) => {
        const name = (v ?? 'burrow').toLowerCase().replace(/\.local\.?$/, '');
        if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(name))
          failVariable('MDNS_NAME', v ?? '', 'letters, digits and dashes (one DNS label)');
        return name;
      },
    ),
  },
  storage: {
    volumeRoot: dir(
      'VOLUME_ROOT',
      (c) => path.join(c.dataDir, 'volumes'),
      '<data>/volumes',
      'Folder whose top-level folders are the volumes. A sample volume `Files` is created on first start when the default folder is empty.',
    ),
    userDirEnabled: bool('USER_DIR_ENABLED', false, 'Give every account a personal folder (`personal/…`).'),
    userRoot: dir('USER_ROOT', (c) => path.join(c.dataDir, 'users'), '<data>/users', 'Where personal folders live.'),
    userVolumes: bool(
      'USER_VOLUMES',
      false,
      'Let administrators assign host folders to accounts; such an account sees only those.',
    ),
    configDir: dir(
      'CONFIG_DIR',
      (c) => path.join(c.dataDir, 'config'),
      '<data>/config',
      'Database, generated secrets and the instance lock.',
    ),
    cacheDir: dir(
      'CACHE_DIR',
      (c) => c.cacheDir,
      '<cache>',
      'Thumbnails, extracted add-ons and other disposable files.',
    ),
    databaseUrl: custom(
      'DATABASE_URL',
      '',
      'Keep every store in PostgreSQL (`postgres://user:password@host:5432/database`) instead of the embedded SQLite file in CONFIG_DIR; the search and folder-size index stays a SQLite file in CACHE_DIR. Unset: the embedded database.',
      (v) => {
        if (v === undefined || v.trim() === '') return null;
        if (!/^postgres(ql)?:\/\/\S+$/i.test(v.trim()))
          failVariable('DATABASE_URL', '(hidden)', 'postgres://user:password@host:5432/database');
        return v.trim();
      },
    ),
    clusterKey: optionalStr(
      'CLUSTER_KEY',
      'With DATABASE_URL: the key that seals the secrets every instance shares (session signing, second-factor and link seal keys) in the database; give every instance the same one. Unset: generated once into CONFIG_DIR/keys/cluster-key (copy that file to every other instance).',
    ),
    clusterLeaseMs: int(
      'CLUSTER_LEASE_MS',
      30_000,
      "With DATABASE_URL: how long an instance's lease and a background job's lease last without renewal (renewed a third of it apart). An instance that dies leaves its jobs and its half-built temporaries to another once it lapses.",
      300,
      3_600_000,
    ),
  },
  auth: {
    mode: custom(
      'AUTH_MODE',
      'both',
      'local, oidc, both or disabled (no authentication; every API public).',
      (v, _c, env) => {
        if (toBool(env.AUTH_ENABLED) === false && env.AUTH_ENABLED !== undefined && env.AUTH_ENABLED.trim() !== '')
          return 'disabled' as const;
        if (v === undefined) return 'both' as const;
        const lower = v.toLowerCase();
        if (lower === 'local' || lower === 'oidc' || lower === 'both' || lower === 'disabled') return lower;
        failVariable('AUTH_MODE', v, 'local, oidc, both, disabled');
      },
    ),
    enabled: bool('AUTH_ENABLED', true, 'false is the same as AUTH_MODE=disabled.'),
    sessionSecret: optionalStr(
      'SESSION_SECRET',
      'Secret for session signing; generated once and kept in CONFIG_DIR when unset.',
    ),
    sessionMaxAgeDays: int('SESSION_MAX_AGE_DAYS', 30, 'Session lifetime in days.', 1, 3650),
    maxFailed: int(
      'AUTH_MAX_FAILED',
      5,
      'Failed sign-ins (password or second-factor code) before the account is locked.',
      1,
      1000,
    ),
    lockMinutes: int('AUTH_LOCK_MINUTES', 15, 'How long a locked account stays locked.', 1, 100000),
    confirmMinutes: int(
      'AUTH_CONFIRM_MINUTES',
      10,
      'An account without a password here (LDAP, single sign-on) makes an API token or removes a passkey only within this many minutes of signing in (with its directory, its provider or a passkey).',
      1,
      1440,
    ),
    adminEmail: optionalStr('AUTH_ADMIN_EMAIL', 'At startup, the account with this address gets the admin role back.'),
    webauthnRpId: optionalStr(
      'WEBAUTHN_RP_ID',
      "Passkeys: the domain they belong to (PUBLIC_URL's host or a parent of it, so they work across sub-domains); default the host of PUBLIC_URL, else the address the browser used.",
    ),
  },
  oidc: {
    enabled: bool('OIDC_ENABLED', false, 'true enables sign-in through an OpenID Connect provider.'),
    issuer: url('OIDC_ISSUER', 'Discovery base of the provider.'),
    clientId: optionalStr('OIDC_CLIENT_ID', 'Client id at the provider.'),
    clientSecret: optionalStr('OIDC_CLIENT_SECRET', 'Client secret at the provider.'),
    scopes: list(
      'OIDC_SCOPES',
      ['openid', 'profile', 'email'],
      'openid profile email',
      'Scopes asked for; add `groups` to inspect group claims.',
    ),
    adminGroups: list(
      'OIDC_ADMIN_GROUPS',
      [],
      '',
      'Groups (comma or space separated, case-insensitive) granting admin in the groups, roles or entitlements claims.',
    ),
    groupsClaim: optionalStr(
      'OIDC_GROUPS_CLAIM',
      "The claim that lists the provider's groups (a dotted path reaches inside an object: `realm_access.roles`). Unset: `groups`, and the admin role also looks at `roles` and `entitlements`.",
    ),
    groupMap: groupMap(
      'OIDC_GROUP_MAP',
      'Provider groups → Burrow groups, kept at every sign-in: `staff=Staff; parents=Family` (`;` or new lines between pairs; provider names case-insensitive; a Burrow group is made when missing). The account joins and leaves only the memberships the provider gave; memberships added by hand stay. A sign-in without the claim changes nothing.',
    ),
    requireEmailVerified: bool(
      'OIDC_REQUIRE_EMAIL_VERIFIED',
      false,
      'Require a verified email before creating or linking an account.',
    ),
    autoCreateUsers: bool(
      'OIDC_AUTO_CREATE_USERS',
      true,
      'Create accounts for new people; false admits only existing accounts.',
    ),
    authorizationUrl: url('OIDC_AUTHORIZATION_URL', 'Override of the authorization endpoint.'),
    tokenUrl: url('OIDC_TOKEN_URL', 'Override of the token endpoint.'),
    userinfoUrl: url('OIDC_USERINFO_URL', 'Override of the userinfo endpoint.'),
    logoutUrl: url(
      'OIDC_LOGOUT_URL',
      'Provider logout address; /logout redirects there with post_logout_redirect_uri.',
    ),
    callbackUrl: url('OIDC_CALLBACK_URL', 'Explicit callback address.', '${PUBLIC_URL}/callback'),
    mobileRedirectUris: custom(
      'OIDC_MOBILE_REDIRECT_URIS',
      '',
      "Allow-list of custom-scheme redirect URIs for native apps that sign in through the identity provider (http(s) refused). Unset: only nextexplorer://oidc-callback, the address of NextExplorer's iOS app (a third-party app that speaks Burrow's API); list your app's address to replace it.",
      (v) => {
        const uris = v === undefined ? ['nextexplorer://oidc-callback'] : v.split(/[\s,]+/).filter(Boolean);
        for (const u of uris)
          if (/^https?:/i.test(u) || !/^[a-z][a-z0-9+.-]*:/i.test(u))
            failVariable('OIDC_MOBILE_REDIRECT_URIS', u, 'custom-scheme URIs such as myapp://callback');
        return uris as readonly string[];
      },
    ),
    timeoutMs: int(
      'OIDC_TIMEOUT_MS',
      10_000,
      'Limit for each call to the identity provider (discovery, token, userinfo); past it the sign-in answers 503.',
      100,
      300_000,
    ),
  },
  ldap: {
    url: custom(
      'LDAP_URL',
      '',
      'LDAP / Active Directory sign-in: the directory, `ldap://host:389` or `ldaps://host:636`. Set, a name and password not of a local account is checked against the directory; the account is made at its first sign-in.',
      (v) => {
        if (v === undefined || v.trim() === '') return null;
        let parsed: URL | null = null;
        try {
          parsed = new URL(v.trim());
        } catch {
          parsed = null;
        }
        if (!parsed || !/^ldaps?:$/.test(parsed.protocol) || !parsed.hostname)
          failVariable('LDAP_URL', v, 'an ldap:// or ldaps:// address such as ldaps://dc1.example.org');
        return v.trim().replace(/\/+$/, '');
      },
    ),
    bindDn: optionalStr('LDAP_BIND_DN', 'The service account that searches the directory (its DN).'),
    bindPassword: optionalStr('LDAP_BIND_PASSWORD', "The service account's password (or LDAP_BIND_PASSWORD_FILE)."),
    bindPasswordFile: custom(
      'LDAP_BIND_PASSWORD_FILE',
      '',
      "A file holding the service account's password (a trailing newline is ignored); read at start.",
      (v) => {
        if (v === undefined || v.trim() === '') return null;
        try {
          return fs.readFileSync(path.resolve(v.trim()), 'utf8').replace(/\r?\n$/, '');
        } catch (err) {
          failVariable(
            'LDAP_BIND_PASSWORD_FILE',
            v,
            `a readable file (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`,
          );
        }
      },
    ),
    userBase: custom(
      'LDAP_USER_BASE',
      '',
      'Where people are searched (a DN, searched with its whole subtree).',
      (v, _c, env) => {
        if ((v === undefined || v.trim() === '') && env.LDAP_URL?.trim())
          failVariable('LDAP_USER_BASE', '', 'the DN people are searched below, such as ou=people,dc=example,dc=org');
        return v?.trim() || null;
      },
    ),
    userFilter: custom(
      'LDAP_USER_FILTER',
      '(uid={username})',
      'The search for the person signing in; `{username}` is what they typed, escaped (RFC 4515). Leave out disabled accounts here, e.g. Active Directory: `(&(objectClass=user)(sAMAccountName={username})(!(userAccountControl:1.2.840.113556.1.4.803:=2)))`.',
      (v) => {
        const f = v?.trim() || '(uid={username})';
        if (!f.includes('{username}') || !f.startsWith('(') || !f.endsWith(')'))
          failVariable('LDAP_USER_FILTER', v ?? '', 'a filter in parentheses that contains {username}');
        return f;
      },
    ),
    usernameAttribute: str(
      'LDAP_USERNAME_ATTRIBUTE',
      'uid',
      'uid',
      "The attribute that is the account's name here (Active Directory: sAMAccountName).",
    ),
    groupAttribute: str(
      'LDAP_GROUP_ATTRIBUTE',
      'memberOf',
      'memberOf',
      "The person's attribute listing their groups' DNs (OpenLDAP's memberof overlay, Active Directory); `none` reads no attribute.",
    ),
    groupBase: optionalStr(
      'LDAP_GROUP_BASE',
      'Where groups are searched with LDAP_GROUP_FILTER (for directories without memberOf, and nested groups); unset: no group search.',
    ),
    groupFilter: custom(
      'LDAP_GROUP_FILTER',
      '(member={dn})',
      "The groups a person is in, searched below LDAP_GROUP_BASE (groupOfUniqueNames: `(uniqueMember={dn})`, posixGroup: `(memberUid={username})`); `{dn}` is the person's DN and `{username}` their name, escaped. Active Directory's nested groups in one search: `(member:1.2.840.113556.1.4.1941:={dn})`.",
      (v) => {
        const f = v?.trim() || '(member={dn})';
        if (!f.startsWith('(') || !f.endsWith(')'))
          failVariable('LDAP_GROUP_FILTER', v ?? '', 'a filter in parentheses with {dn} or {username}');
        return f;
      },
    ),
    groupNested: bool(
      'LDAP_GROUP_NESTED',
      false,
      'Follow groups inside groups with LDAP_GROUP_FILTER ({dn} = each group found), up to 8 levels (not needed with the in-chain rule).',
    ),
    groupMap: groupMap(
      'LDAP_GROUP_MAP',
      'Directory groups (cn or whole DN, case-insensitive) → Burrow groups, kept at every sign-in: `staff=Staff; cn=parents,ou=groups,dc=example,dc=org=Family`. The account joins and leaves only the memberships the directory gave; memberships added by hand stay.',
    ),
    adminGroup: optionalStr(
      'LDAP_ADMIN_GROUP',
      'Members of this directory group (cn or DN) are administrators, the others not (decided at every sign-in); unset: the role stays as set here.',
    ),
    caFile: custom(
      'LDAP_CA_FILE',
      '',
      "The certificate authority (PEM) the directory's certificate must chain to, for ldaps:// and LDAP_STARTTLS; unset: the system's authorities.",
      (v) => {
        if (v === undefined || v.trim() === '') return null;
        try {
          return fs.readFileSync(path.resolve(v.trim()), 'utf8');
        } catch (err) {
          failVariable(
            'LDAP_CA_FILE',
            v,
            `a readable PEM file (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`,
          );
        }
      },
    ),
    startTls: bool('LDAP_STARTTLS', false, 'Upgrade an ldap:// connection with StartTLS before anything is sent.'),
    timeoutMs: int(
      'LDAP_TIMEOUT_MS',
      5000,
      'Limit for each call to the directory; past it (or the directory down) a directory sign-in answers 503 while local accounts still sign in.',
      100,
      300_000,
    ),
    checkIntervalMs: int(
      'LDAP_CHECK_INTERVAL_MS',
      900_000,
      'How often every directory account is looked up again: one the directory disabled or removed is signed out and its API tokens revoked then, not only at its next sign-in. 0: only at sign-in.',
      0,
      86_400_000,
    ),
  },
  uploads: {
    maxDirectUploadSize: size('MAX_DIRECT_UPLOAD_SIZE', 64 * GB, '64G', 'Largest file accepted by a multipart upload.'),
    maxFilesPerUpload: int('MAX_FILES_PER_UPLOAD', 50, 'Most files in one multipart upload.', 1, 100000),
    chunkedEnabled: bool('UPLOAD_CHUNKED_ENABLED', false, 'true turns on resumable (TUS) uploads.'),
    tusIncompleteTtlMs: int(
      'TUS_INCOMPLETE_UPLOAD_TTL_MS',
      3_600_000,
      'How long an unfinished resumable upload is kept.',
      1000,
    ),
    freeSpaceReserve: size(
      'UPLOAD_FREE_SPACE_RESERVE',
      64 * MB,
      '64M',
      'Space every upload leaves free on its volume; an upload that would eat into it answers 507.',
    ),
  },
  notify: {
    pushServices: list(
      'PUSH_SERVICES',
      [],
      '',
      "Web Push services Burrow may send to besides the browsers' own (Google, Mozilla, Microsoft, Apple), as origins (comma separated, e.g. https://push.example.org for a self-hosted one). A browser's subscription naming any other address is refused.",
    ),
    clockFile: optionalStr(
      'NOTIFY_CLOCK_FILE',
      'For tests only: a file holding the time (ISO 8601) that quiet hours and digests take as now, read when they decide; unset, the system clock.',
    ),
  },
  fetch: {
    allowNetworks: list(
      'FETCH_ALLOW_NETWORKS',
      [],
      '',
      'Networks "Add from link" may fetch from besides public addresses (comma separated CIDRs such as 192.168.1.0/24, or `lan` for the private ranges). Private, loopback, link-local, multicast and cloud-metadata addresses are refused unless listed.',
    ),
    maxSize: size('FETCH_MAX_SIZE', 64 * GB, '64G', 'Largest file "Add from link" fetches.'),
    timeoutMs: int(
      'FETCH_TIMEOUT_MS',
      30_000,
      'How long "Add from link" waits for the other server to connect and answer, and between two parts of its body.',
      100,
      600_000,
    ),
    dnsServer: optionalStr(
      'FETCH_DNS_SERVER',
      'DNS server (address or address:port) that resolves the names of "Add from link"; empty: the system resolver.',
    ),
  },
  limits: {
    editorMaxFileSize: size('EDITOR_MAX_FILESIZE', 10 * MB, '10M', 'Largest text file the editor reads or saves.'),
    maxBrowsableArchiveSize: size(
      'MAX_BROWSABLE_ARCHIVE_SIZE',
      2 * GB,
      '2G',
      'Largest compound archive (tar.gz, 7z…) that can be listed.',
    ),
    archiveMaxEntries: int(
      'ARCHIVE_MAX_ENTRIES',
      200_000,
      'Most entries an archive may hold to be listed or extracted.',
      1,
    ),
    jsonBodyLimit: size(
      'JSON_BODY_LIMIT',
      1 * MB,
      '1M',
      'Largest JSON request body (editor saves may be up to EDITOR_MAX_FILESIZE).',
    ),
  },
  video: {
    transcodes: int(
      'VIDEO_TRANSCODES',
      1,
      'Videos converted (re-encoded with libx264) at once for viewers whose browser cannot play them; each takes about a core. A viewer past it is asked to try again.',
      0,
      64,
    ),
    streams: int(
      'VIDEO_STREAMS',
      4,
      'Videos streamed through ffmpeg at once, conversions and repackagings (MKV to MP4, copying the codecs: cheap) together.',
      0,
      256,
    ),
  },
  folderSize: {
    mode: oneOf(
      'FOLDER_SIZE_MODE',
      ['off', 'full', 'shallow'] as const,
      'off',
      'off, full (recursive sizes) or shallow (direct entries only). Unset: as chosen in Administration → Installation (default off); set, it wins there.',
    ),
    excludePaths: list(
      'FOLDER_SIZE_EXCLUDE_PATHS',
      [],
      '',
      'Comma or newline separated paths relative to the volume root, never indexed.',
      /[,\n]+/,
    ),
    concurrency: int('FOLDER_SIZE_CONCURRENCY', 6, 'Baseline walk concurrency on local disks.', 1, 256),
    networkConcurrency: int('FOLDER_SIZE_NETWORK_CONCURRENCY', 2, 'Concurrency on network mounts.', 1, 256),
    flushMs: int('FOLDER_SIZE_FLUSH_MS', 3000, 'Flush interval of dirty directories.', 10),
    reconcileMs: int('FOLDER_SIZE_RECONCILE_MS', 0, '0 = adaptive; otherwise a fixed sweep interval.'),
    reconcileMinMs: int('FOLDER_SIZE_RECONCILE_MIN_MS', 900_000, 'Fastest adaptive sweep interval.', 1),
    reconcileMaxMs: int(
      'FOLDER_SIZE_RECONCILE_MAX_MS',
      43_200_000,
      'Slowest adaptive sweep interval (doubles when idle).',
      1,
    ),
    reconcileBatch: int('FOLDER_SIZE_RECONCILE_BATCH', 100, 'Folders checked per page.', 1),
    reconcilePauseMs: int('FOLDER_SIZE_RECONCILE_PAUSE_MS', 200, 'Sleep between pages.'),
    reconcileMaxDirectories: int(
      'FOLDER_SIZE_RECONCILE_MAX_DIRECTORIES',
      200,
      'Folders per scheduled slice; 0 = unbounded.',
    ),
    ioTimeoutMs: int('FOLDER_SIZE_IO_TIMEOUT_MS', 30_000, 'Limit for one read-directory or stat call; 0 = indefinite.'),
    maxStalledIo: int('FOLDER_SIZE_MAX_STALLED_IO', 2, 'Timed-out calls in flight before work pauses.', 1),
    subtreeBatch: intOr(
      'FOLDER_SIZE_SUBTREE_BATCH',
      'FOLDER_SIZE_RECONCILE_BATCH',
      'Stat batch for rebuilding one incomplete subtree.',
      (env) => Number(env.FOLDER_SIZE_RECONCILE_BATCH?.trim() || 100),
      1,
    ),
    subtreePauseMs: intOr(
      'FOLDER_SIZE_SUBTREE_PAUSE_MS',
      'FOLDER_SIZE_RECONCILE_PAUSE_MS',
      'Sleep between targeted-scan batches.',
      (env) => Number(env.FOLDER_SIZE_RECONCILE_PAUSE_MS?.trim() || 200),
    ),
    subtreeSlowLogMs: int(
      'FOLDER_SIZE_SUBTREE_SLOW_LOG_MS',
      5000,
      'A subtree scan at least this long gets one info summary.',
    ),
    rebuild: bool('FOLDER_SIZE_REBUILD', false, 'true forces a fresh baseline walk at startup.'),
  },
  search: {
    indexEnabled: bool(
      'SEARCH_INDEX_ENABLED',
      true,
      'Keep the name and content index for search (independent of FOLDER_SIZE_MODE).',
    ),
    timeBudgetMs: int(
      'SEARCH_TIME_BUDGET_MS',
      3000,
      'Time budget of one search; past it the answer is marked truncated.',
      50,
    ),
    extractMaxSize: size(
      'SEARCH_EXTRACT_MAX_SIZE',
      100 * MB,
      '100M',
      'Largest PDF, EPUB, office, RTF or HTML document whose text is indexed; a larger one is counted as too large.',
    ),
    extractMaxPages: int(
      'SEARCH_EXTRACT_MAX_PAGES',
      2000,
      'PDF pages whose text is indexed, at most, per document.',
      1,
    ),
    extractTimeoutMs: int(
      'SEARCH_EXTRACT_TIMEOUT_MS',
      60000,
      'Longest the text of one document may take to read; past it the reader is stopped and the document counted as timed out.',
      100,
    ),
    extractRunMs: int(
      'SEARCH_EXTRACT_RUN_MS',
      3600000,
      "Time the document reader may spend in one walk of the index; past it the walk's other documents wait for the next walk of their folder (0 = no limit).",
    ),
  },
  features: {
    showVolumeUsage: bool('SHOW_VOLUME_USAGE', false, 'Show the volume usage bar.'),
    trashRetentionDays: int(
      'TRASH_RETENTION_DAYS',
      30,
      'Days a trashed item is kept before it is removed for good; 0 keeps it until the trash is emptied.',
      0,
      36500,
    ),
    trashSweepIntervalMs: int(
      'TRASH_SWEEP_INTERVAL_MS',
      21_600_000,
      'How often trash entries older than TRASH_RETENTION_DAYS are removed (the first time at start).',
      100,
      604_800_000,
    ),
    webdavEnabled: bool(
      'WEBDAV_ENABLED',
      true,
      'Serve WebDAV at /dav/ (mount Burrow as a drive; HTTP Basic with the account password or an API token).',
    ),
  },
  officeEditor: {
    url: url(
      'OFFICEEDITOR_URL',
      'Public base URL of the WOPI editing server; the office routes exist only when set (with PUBLIC_URL and OFFICEEDITOR_SECRET).',
    ),
    secret: optionalStr('OFFICEEDITOR_SECRET', 'Shared secret signing the WOPI access tokens (JWT).'),
    discoveryUrl: url('OFFICEEDITOR_DISCOVERY_URL', 'WOPI discovery address.', '${OFFICEEDITOR_URL}/hosting/discovery'),
    lang: str('OFFICEEDITOR_LANG', 'en', 'en', 'Editor language.'),
    fileExtensions: list(
      'OFFICEEDITOR_FILE_EXTENSIONS',
      [],
      '',
      'Comma separated extensions opened in the editor; otherwise defaults or discovery.',
    ),
  },
  onlyoffice: {
    url: url(
      'ONLYOFFICE_URL',
      'Public base URL of an ONLYOFFICE Docs server; the /api/onlyoffice routes exist only when set (with PUBLIC_URL and ONLYOFFICE_SECRET).',
    ),
    secret: optionalStr(
      'ONLYOFFICE_SECRET',
      "The document server's JWT secret (signs the editor config, the download and callback links).",
    ),
    lang: str('ONLYOFFICE_LANG', 'en', 'en', 'Editor language.'),
    fileExtensions: list(
      'ONLYOFFICE_FILE_EXTENSIONS',
      [],
      '',
      'Comma separated extensions opened in ONLYOFFICE; otherwise its defaults.',
    ),
    forceSave: bool(
      'ONLYOFFICE_FORCE_SAVE',
      false,
      "Let the editor's save button write the file (each save keeps the replaced content as a version).",
    ),
  },
  terminal: {
    enabled: bool(
      'TERMINAL_ENABLED',
      false,
      'Offer administrators a shell in the browser (Administration → Terminal), running as the service account. Unset: as switched in Administration → Installation (default off); set, it wins there.',
    ),
    maxSessions: int('TERMINAL_MAX_SESSIONS', 4, 'Most terminals open at once, all administrators together.', 1, 1000),
    idleTimeoutMs: int(
      'TERMINAL_IDLE_TIMEOUT_MS',
      1_800_000,
      'A terminal without input for this long is closed; 0 = never.',
    ),
    shell: optionalStr(
      'TERMINAL_SHELL',
      'The shell to run; default $SHELL (unless a no-login shell), else /bin/sh; COMSPEC on Windows.',
    ),
  },
} as const;

type ValuesOf<T> = { readonly [K in keyof T]: T[K] extends Variable<infer V> ? V : ValuesOf<T[K]> };
/** The variables' values, and what loading them learnt besides (so nobody reads the environment again). */
export type Config = ValuesOf<typeof variables> & {
  /** VOLUME_ROOT was set: a missing root is an unmounted disk and is never created. */
  readonly storage: { readonly volumeRootExplicit: boolean };
  /**
   * The variables the environment set (to a non-empty value). A setting that can also be changed
   * in Administration → Installation follows the variable when it is set (FOLDER_SIZE_MODE,
   * TERMINAL_ENABLED): the screen says so.
   */
  readonly fromEnvironment: readonly string[];
};

/** Every variable, flat, in table order (used by the README check and `burrow --help`). */
export function allVariables(): Variable<unknown>[] {
  const out: Variable<unknown>[] = [];
  const walk = (node: object) => {
    for (const value of Object.values(node)) {
      if (value && typeof (value as Variable<unknown>).read === 'function') out.push(value as Variable<unknown>);
      else walk(value as object);
    }
  };
  walk(variables);
  return out;
}

/** Per-user folders of a desktop run; a service install sets CONFIG_DIR etc. explicitly. */
export function platformDefaults(env: Env = process.env, platform = process.platform): DefaultsContext {
  const home = os.homedir();
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA || path.join(home, 'AppData', 'Local');
    return { dataDir: path.join(local, 'Burrow'), cacheDir: path.join(local, 'Burrow', 'Cache') };
  }
  if (platform === 'darwin') {
    return {
      dataDir: path.join(home, 'Library', 'Application Support', 'Burrow'),
      cacheDir: path.join(home, 'Library', 'Caches', 'Burrow'),
    };
  }
  return {
    dataDir: path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'burrow'),
    cacheDir: path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'burrow'),
  };
}

function readGroup(node: object, env: Env, ctx: DefaultsContext): unknown {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      typeof (value as Variable<unknown>).read === 'function'
        ? (value as Variable<unknown>).read(env, ctx)
        : readGroup(value as object, env, ctx);
  }
  return Object.freeze(out);
}

/** Reads the whole configuration; throws ConfigError with one line naming the variable. */
export function loadConfig(env: Env = process.env, ctx: DefaultsContext = platformDefaults(env)): Config {
  const values = readGroup(variables, env, ctx) as ValuesOf<typeof variables>;
  const config: Config = Object.freeze({
    ...values,
    storage: Object.freeze({ ...values.storage, volumeRootExplicit: Boolean(env.VOLUME_ROOT?.trim()) }),
    fromEnvironment: Object.freeze(allVariables().flatMap((v) => (env[v.name]?.trim() ? [v.name] : []))),
  });
  if (config.folderSize.reconcileMinMs > config.folderSize.reconcileMaxMs) {
    throw new ConfigError('FOLDER_SIZE_RECONCILE_MIN_MS must not be larger than FOLDER_SIZE_RECONCILE_MAX_MS.');
  }
  return config;
}
