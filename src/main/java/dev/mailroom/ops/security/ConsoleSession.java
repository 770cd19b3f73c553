package dev.mailroom.ops.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * What a console login leaves in the HTTP session: the user, the Mailroom roles the realm gave them, and the
 * CSRF token every write request of that session must carry in {@code X-CSRF-Token}.
 */
public record ConsoleSession(String username, List<String> roles, String csrfToken) {

    static final String USER = "mailroom.user";
    static final String ROLES = "mailroom.roles";
    static final String CSRF = "mailroom.csrf";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The logged-in session of a request, or null (no session, or a session nobody logged in with). */
    @SuppressWarnings("unchecked")
    public static ConsoleSession of(HttpServletRequest request) {
        HttpSession session = request.getSession(false);
        if (session == null) {
            return null;
        }
        try {
            Object user = session.getAttribute(USER);
            Object roles = session.getAttribute(ROLES);
            Object csrf = session.getAttribute(CSRF);
            if (user instanceof String u && roles instanceof List<?> r && csrf instanceof String c) {
                return new ConsoleSession(u, List.copyOf((List<String>) r), c);
            }
            return null;
        } catch (IllegalStateException invalidated) {
            return null;
        }
    }

    /**
     * Starts the logged-in session of a request whose credentials the realm has just accepted: a fresh session id
     * (no fixation), the user and roles, and a new CSRF token.
     */
    public static ConsoleSession start(HttpServletRequest request, String username, List<String> roles) {
        HttpSession session = request.getSession(true);
        request.changeSessionId();
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        session.setAttribute(USER, username);
        session.setAttribute(ROLES, new ArrayList<>(roles));
        session.setAttribute(CSRF, token);
        return new ConsoleSession(username, List.copyOf(roles), token);
    }

    /** Ends the session of a request, if any. */
    public static void end(HttpServletRequest request) {
        HttpSession session = request.getSession(false);
        if (session != null) {
            try {
                session.invalidate();
            } catch (IllegalStateException alreadyInvalidated) {
                // nothing to end
            }
        }
    }

    /** The Mailroom roles of the user the request is authenticated as (by the realm), in a fixed order. */
    public static List<String> rolesOf(HttpServletRequest request) {
        List<String> roles = new ArrayList<>(2);
        if (request.isUserInRole(AccessRules.VIEWER)) {
            roles.add(AccessRules.VIEWER);
        }
        if (request.isUserInRole(AccessRules.OPERATOR)) {
            roles.add(AccessRules.OPERATOR);
        }
        return roles;
    }
}
