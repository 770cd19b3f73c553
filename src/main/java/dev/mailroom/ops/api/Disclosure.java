package dev.mailroom.ops.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.deadletter.DeadLetterActions;
import dev.mailroom.job.PayloadRedaction;
import dev.mailroom.platform.Json;
import dev.mailroom.redrive.ViewRedaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;

/**
 * How an answer that holds a payload (or a diff of one) goes out: redacted ({@link ViewRedaction}, fields of
 * {@code mailroom.redact.fields}) unless an operator asks for {@code ?reveal=true}, which is recorded on every
 * dead letter it shows ({@link DeadLetterActions#revealed}). Who may reveal is {@code ops.security.AccessRules}' decision,
 * applied before the resource runs; the role check here only names a gap loudly.
 */
@ApplicationScoped
public class Disclosure {

    static final String OPERATOR = "mailroom-operator";
    private static final ObjectMapper JSON = Json.snakeCaseMapper();

    @Inject
    PayloadRedaction redaction;
    @Inject
    DeadLetterActions reveals;

    /** The view as JSON: redacted, or whole when {@code reveal} (operators only; recorded as {@code what}). */
    public JsonNode view(Object view, boolean reveal, SecurityContext security, String what) {
        JsonNode tree = JSON.valueToTree(view);
        if (!reveal) {
            return new ViewRedaction(redaction).apply(tree);
        }
        if (security == null || !security.isUserInRole(OPERATOR)) {
            throw new jakarta.ws.rs.ForbiddenException("only an operator may reveal a payload");
        }
        reveals.revealed(ViewRedaction.deadLetterIds(tree), Actors.of(security), what);
        return tree;
    }

    /** {@link #view} as a 200 answer. */
    public Response ok(Object view, boolean reveal, SecurityContext security, String what) {
        return Response.ok(view(view, reveal, security, what)).build();
    }
}
