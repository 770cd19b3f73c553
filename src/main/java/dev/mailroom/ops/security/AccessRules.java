package dev.mailroom.ops.security;

import java.security.MessageDigest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The pure access decision: which requests are public, which role a request needs, and whether a write
 * request is a cross-site forgery. No servlet types, so it is tested with plain JUnit.
 *
 * <p>Paths are relative to the context root ({@code /api/v1/jobs/x}, {@code /console/index.html}).
 */
public final class AccessRules {

    public static final String VIEWER = "mailroom-viewer";
    public static final String OPERATOR = "mailroom-operator";
    /** A request header the console sends so that a 401 carries no {@code WWW-Authenticate} (no browser dialog). */
    public static final String CONSOLE_HEADER = "X-Mailroom-Console";
    public static final String CSRF_HEADER = "X-CSRF-Token";
    public static final String SESSION_PATH = "/api/v1/session";
    public static final String CONSOLE_LOGIN = "/console/login.html";
    public static final String WEBHOOKS_PATH = "/api/v1/webhooks";
    /** What only an operator may read: the sandbox outbox holds whole rendered mails. */
    public static final String SANDBOX_PATH = "/api/v1/sandbox";
    /** The query parameter that asks for a payload unredacted (operators only; recorded). */
    public static final String REVEAL_PARAM = "reveal";
    /** The console's Content-Security-Policy: its own scripts and styles only, never framed. */
    public static final String CONSOLE_CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'self'; "
            + "form-action 'self'; object-src 'none'";
    /** The API answers JSON only: nothing in it may load or run anything. */
    public static final String API_CSP = "default-src 'none'; frame-ancestors 'none'";

    private AccessRules() {
    }

    /** What a path is, for access. */
    public enum Area {
        /** No authentication: health and webhooks, the console's login page and static assets, anything else outside API and console. */
        PUBLIC,
        /** The session endpoint: login, current session, logout; the resource decides (only the CSRF rule applies). */
        SESSION,
        /** The REST API: Basic or session, role by method. */
        API,
        /** The console's pages: a session, else a redirect to the login page. */
        CONSOLE,
        /** Under {@code /api/v1/webhooks/} but no configured profile's endpoint: 404 to everyone, before any login. */
        NOT_FOUND
    }

    /** {@link #area(String, Set)} with no webhook profile configured. */
    public static Area area(String path) {
        return area(path, Set.of());
    }

    /**
     * The area of a context-relative path; lenient with trailing slashes and case of nothing (paths are
     * case-sensitive). {@code webhookProfiles}: the configured webhook profiles; only
     * {@code /api/v1/webhooks/<profile>} of one of them is public, the rest of {@code /api/v1/webhooks} does not exist.
     */
    public static Area area(String path, Set<String> webhookProfiles) {
        String p = path == null || path.isEmpty() ? "/" : path;
        if (under(p, "/api")) {
            if (under(p, WEBHOOKS_PATH)) {
                String rest = p.substring(WEBHOOKS_PATH.length());
                return rest.length() > 1 && rest.indexOf('/', 1) < 0 && webhookProfiles.contains(rest.substring(1))
                        ? Area.PUBLIC : Area.NOT_FOUND;
            }
            if (under(p, "/api/v1/health")) {
                return Area.PUBLIC;
            }
            if (under(p, SESSION_PATH)) {
                return Area.SESSION;
            }
            return Area.API;
        }
        if (under(p, "/console")) {
            if (p.equals(CONSOLE_LOGIN) || under(p, "/console/assets")) {
                return Area.PUBLIC;
            }
            return Area.CONSOLE;
        }
        return Area.PUBLIC;
    }

    /** {@code p} is {@code prefix} itself or below it ({@code /api/v1/health} and {@code /api/v1/health/x}, not {@code /api/v1/healthy}). */
    private static boolean under(String p, String prefix) {
        return p.equals(prefix) || p.startsWith(prefix + "/");
    }

    /** A method that only reads: GET and HEAD. */
    public static boolean isRead(String method) {
        String m = method == null ? "" : method.toUpperCase(Locale.ROOT);
        return m.equals("GET") || m.equals("HEAD");
    }

    /** Whether a user with {@code roles} may make a request with {@code method}: reads need viewer or operator, everything else operator. */
    public static boolean permits(String method, Collection<String> roles) {
        if (roles == null) {
            return false;
        }
        if (roles.contains(OPERATOR)) {
            return true;
        }
        return isRead(method) && roles.contains(VIEWER);
    }

    /**
     * Whether a user with {@code roles} may make this request: {@link #permits(String, Collection)} by method, and
     * reads that show secrets (the sandbox outbox, a payload {@code reveal}) only for an operator.
     */
    public static boolean permits(String path, String method, boolean reveal, Collection<String> roles) {
        if (roles != null && roles.contains(OPERATOR)) {
            return true;
        }
        if (reveal || under(path == null ? "/" : path, SANDBOX_PATH)) {
            return false;
        }
        return permits(method, roles);
    }

    /**
     * Who may make a request, as the API's description states it: empty when no login is asked (health, a provider's
     * webhook, which its signature authenticates, and the session endpoint, whose body carries the credentials), else
     * the roles {@link #permits(String, String, boolean, Collection)} lets through (without {@code reveal}). Derived
     * from the rules the filter enforces, so the description cannot say otherwise.
     */
    public static List<String> documentedRoles(String path, String method) {
        String p = path == null || path.isEmpty() ? "/" : path;
        if (under(p, WEBHOOKS_PATH) || area(p) != Area.API) {
            return List.of();
        }
        return java.util.stream.Stream.of(VIEWER, OPERATOR).filter(r -> permits(p, method, false, List.of(r))).toList();
    }

    /** Whether a query string asks for {@code reveal=true} (as JAX-RS reads a boolean: case-insensitive). */
    public static boolean reveal(String queryString) {
        if (queryString == null || queryString.isEmpty()) {
            return false;
        }
        return Arrays.stream(queryString.split("&")).map(kv -> kv.split("=", 2))
                .anyMatch(kv -> kv[0].equals(REVEAL_PARAM) && kv.length == 2 && kv[1].equalsIgnoreCase("true"));
    }

    /**
     * The hardening headers of every answer under {@code /api} and {@code /console} (before any refusal): the
     * console's pages get {@link #CONSOLE_CSP}, the API {@link #API_CSP}; nothing is sniffed, framed or given a
     * referrer.
     */
    public static Map<String, String> securityHeaders(String path) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Security-Policy", under(path == null ? "/" : path, "/console") ? CONSOLE_CSP : API_CSP);
        h.put("X-Content-Type-Options", "nosniff");
        h.put("X-Frame-Options", "DENY");
        h.put("Referrer-Policy", "no-referrer");
        return h;
    }

    /**
     * The cross-site check of a write request, whatever authenticated it: refused when {@code Sec-Fetch-Site} says
     * {@code cross-site} or an {@code Origin} is present and is not the server's own origin. Reads always pass.
     *
     * @param ownOrigin the origin the request was addressed to, {@code scheme://host[:port]} as the client wrote it
     */
    public static boolean crossSite(String method, String origin, String secFetchSite, String ownOrigin) {
        if (isRead(method)) {
            return false;
        }
        if (secFetchSite != null && secFetchSite.trim().equalsIgnoreCase("cross-site")) {
            return true;
        }
        if (origin == null) {
            return false;
        }
        return ownOrigin == null || !normaliseOrigin(origin).equals(normaliseOrigin(ownOrigin));
    }

    /**
     * The session rule: a write request authenticated by the session carries the session's CSRF token in
     * {@code X-CSRF-Token}. Compared in constant time.
     */
    public static boolean csrfTokenMissing(String method, String sessionToken, String headerToken) {
        if (isRead(method)) {
            return false;
        }
        if (sessionToken == null || headerToken == null) {
            return true;
        }
        return !MessageDigest.isEqual(sessionToken.getBytes(StandardCharsets.UTF_8),
                headerToken.trim().getBytes(StandardCharsets.UTF_8));
    }

    /** {@code scheme://host[:port]} for a request: the default port is left out, as browsers write an Origin. */
    public static String origin(String scheme, String hostHeader) {
        if (scheme == null || hostHeader == null || hostHeader.isBlank()) {
            return null;
        }
        return normaliseOrigin(scheme + "://" + hostHeader.trim());
    }

    private static String normaliseOrigin(String origin) {
        String o = origin.trim().toLowerCase(Locale.ROOT);
        while (o.endsWith("/")) {
            o = o.substring(0, o.length() - 1);
        }
        if (o.startsWith("http://") && o.endsWith(":80")) {
            o = o.substring(0, o.length() - 3);
        } else if (o.startsWith("https://") && o.endsWith(":443")) {
            o = o.substring(0, o.length() - 4);
        }
        return o;
    }

    /** A console request for a page without a session: where to send the browser. */
    public static String loginRedirect(String contextPath) {
        return (contextPath == null ? "" : contextPath) + CONSOLE_LOGIN;
    }
}
