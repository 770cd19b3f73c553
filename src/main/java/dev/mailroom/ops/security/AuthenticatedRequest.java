package dev.mailroom.ops.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.security.Principal;
import java.util.List;

/** The request as the application sees it once {@link AccessFilter} has authenticated it: user and roles. */
final class AuthenticatedRequest extends HttpServletRequestWrapper {

    private final Principal principal;
    private final List<String> roles;
    private final String authType;

    AuthenticatedRequest(HttpServletRequest request, String username, List<String> roles, String authType) {
        super(request);
        this.principal = new UserPrincipal(username);
        this.roles = List.copyOf(roles);
        this.authType = authType;
    }

    @Override
    public String getRemoteUser() {
        return principal.getName();
    }

    @Override
    public Principal getUserPrincipal() {
        return principal;
    }

    @Override
    public boolean isUserInRole(String role) {
        return roles.contains(role);
    }

    @Override
    public String getAuthType() {
        return authType;
    }

    private record UserPrincipal(String name) implements Principal {
        @Override
        public String getName() {
            return name;
        }
    }
}
