package dev.mailroom.ops.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Authentication, roles and CSRF for the API and the console, on the server, before any resource runs
 * ({@link AccessRules} decides). A request is authenticated by the console's session (see
 * {@link ConsoleSession}) or, failing that, by HTTP Basic checked against the server's security realm with
 * {@link HttpServletRequest#login(String, String)}; it then continues as an {@link AuthenticatedRequest}, so
 * JAX-RS' {@code SecurityContext} and {@code getRemoteUser()} name the user. Refusals are the API's JSON error
 * shape ({@code status}, {@code error}, {@code reason}); a console page without a session redirects to the login page.
 */
@WebFilter(filterName = "mailroom-access", urlPatterns = {"/api/*", "/console/*"})
public class AccessFilter extends HttpFilter {

    private static final Logger LOG = Logger.getLogger(AccessFilter.class.getName());

    /**
     * The webhook profiles that answer (those whose secret is configured, see the reconcile package): only their
     * endpoints are public, see {@link AccessRules#area}. One source of truth with the endpoint itself.
     */
    @jakarta.inject.Inject
    dev.mailroom.reconcile.WebhookInbox webhooks;

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String path = path(request);
        AccessRules.securityHeaders(path).forEach(response::setHeader);
        AccessRules.Area area = AccessRules.area(path, webhooks.profiles());
        if (area == AccessRules.Area.NOT_FOUND) {
            refuse(response, 404, "not_found", "no webhook endpoint at " + path);
            return;
        }
        if (area == AccessRules.Area.PUBLIC) {
            chain.doFilter(request, response);
            return;
        }
        String method = request.getMethod();
        if (AccessRules.crossSite(method, request.getHeader("Origin"), request.getHeader("Sec-Fetch-Site"),
                AccessRules.origin(request.getScheme(), request.getHeader("Host")))) {
            LOG.warning(() -> String.format("refused a cross-site %s %s (Origin %s, Sec-Fetch-Site %s)", method, path,
                    request.getHeader("Origin"), request.getHeader("Sec-Fetch-Site")));
            refuse(response, 403, "csrf_refused", "a write request from another site is refused");
            return;
        }
        ConsoleSession session = ConsoleSession.of(request);
        if (area == AccessRules.Area.SESSION) {
            // login, the current session and logout decide for themselves; logging out is a write of the session
            if (session != null && "DELETE".equalsIgnoreCase(method) && csrfRefused(request, response, session)) {
                return;
            }
            chain.doFilter(request, response);
        } else if (session != null) {
            bySession(request, response, chain, session, path);
        } else {
            byBasic(request, response, chain, area, path);
        }
    }

    /** A request of a console session: its CSRF token on writes, then its roles. */
    private static void bySession(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
                                  ConsoleSession session, String path) throws IOException, ServletException {
        if (csrfRefused(request, response, session)) {
            return;
        }
        if (!AccessRules.permits(path, request.getMethod(), reveal(request), session.roles())) {
            forbidden(response, session.username(), request.getMethod());
            return;
        }
        chain.doFilter(new AuthenticatedRequest(request, session.username(), session.roles(), "FORM"), response);
    }

    private static boolean csrfRefused(HttpServletRequest request, HttpServletResponse response, ConsoleSession session)
            throws IOException {
        if (AccessRules.csrfTokenMissing(request.getMethod(), session.csrfToken(),
                request.getHeader(AccessRules.CSRF_HEADER))) {
            refuse(response, 403, "csrf_refused", "a write request of a console session needs its X-CSRF-Token");
            return true;
        }
        return false;
    }

    /** A request without a console session: HTTP Basic, or the console's login page for a person's read. */
    private static void byBasic(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
                                AccessRules.Area area, String path) throws IOException, ServletException {
        String method = request.getMethod();
        String[] basic = basic(request.getHeader("Authorization"));
        if (basic == null) {
            if (area == AccessRules.Area.CONSOLE && AccessRules.isRead(method)) {
                response.sendRedirect(AccessRules.loginRedirect(request.getContextPath()));
                return;
            }
            unauthenticated(request, response, "authentication required: HTTP Basic or a console session");
            return;
        }
        // Elytron keeps a programmatic login's identity in an HTTP session it creates: a Basic request must not
        // leave one behind (clients that poll would pile up sessions), and such a session authenticates
        // nothing here anyway (only a console login's does, see ConsoleSession).
        boolean hadSession = request.getSession(false) != null;
        try {
            try {
                request.login(basic[0], basic[1]);
            } catch (ServletException e) {
                LOG.log(Level.FINE, e, () -> "Basic authentication refused for " + basic[0]);
                unauthenticated(request, response, "the user name or password is not right");
                return;
            }
            List<String> roles = ConsoleSession.rolesOf(request);
            if (!AccessRules.permits(path, method, reveal(request), roles)) {
                forbidden(response, basic[0], method);
                return;
            }
            chain.doFilter(new AuthenticatedRequest(request, basic[0], roles, HttpServletRequest.BASIC_AUTH), response);
        } finally {
            if (!hadSession) {
                dropSessionOf(request);
            }
        }
    }

    private static boolean reveal(HttpServletRequest request) {
        return AccessRules.reveal(request.getQueryString());
    }

    /** Ends the session a Basic request's login created, unless the request became a console login. */
    private static void dropSessionOf(HttpServletRequest request) {
        if (ConsoleSession.of(request) == null) {
            ConsoleSession.end(request);
        }
    }

    /** The context-relative path, as the container decoded and normalised it. */
    private static String path(HttpServletRequest request) {
        String servletPath = request.getServletPath() == null ? "" : request.getServletPath();
        String info = request.getPathInfo() == null ? "" : request.getPathInfo();
        return servletPath + info;
    }

    /** {user, password} of an {@code Authorization: Basic} header, or null when there is none or it is malformed. */
    static String[] basic(String header) {
        if (header == null || header.length() < 6 || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        return new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)};
    }

    private static void unauthenticated(HttpServletRequest request, HttpServletResponse response, String reason)
            throws IOException {
        if (request.getHeader(AccessRules.CONSOLE_HEADER) == null) {
            response.setHeader("WWW-Authenticate", "Basic realm=\"mailroom\", charset=\"UTF-8\"");
        }
        refuse(response, 401, "unauthenticated", reason);
    }

    private static void forbidden(HttpServletResponse response, String user, String method) throws IOException {
        refuse(response, 403, "forbidden", "user " + user + " may not " + (AccessRules.isRead(method)
                ? "read this (needs role " + AccessRules.OPERATOR + " for the sandbox outbox and reveal=true, else "
                        + AccessRules.VIEWER + ")"
                : "act on Mailroom (needs role " + AccessRules.OPERATOR + ")"));
    }

    /** The API's error shape, written without JAX-RS (the filter runs before it). */
    static void refuse(HttpServletResponse response, int status, String error, String reason) throws IOException {
        response.resetBuffer();
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write("{\"status\":" + status + ",\"error\":\"" + json(error) + "\",\"reason\":\""
                + json(reason) + "\"}");
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }
}
