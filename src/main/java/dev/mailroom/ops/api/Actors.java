package dev.mailroom.ops.api;

import jakarta.ws.rs.core.SecurityContext;

/** Who is acting: the authenticated user, recorded with every operator action. */
final class Actors {

    private Actors() {
    }

    static String of(SecurityContext security) {
        if (security == null || security.getUserPrincipal() == null) {
            // the security filter lets no unauthenticated write through; this only names a gap loudly
            throw new jakarta.ws.rs.NotAuthorizedException("Basic realm=\"mailroom\"");
        }
        return security.getUserPrincipal().getName();
    }
}
