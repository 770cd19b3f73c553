package dev.mailroom.ops.testing;

import dev.mailroom.platform.Refused;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code GET /api/v1/testing/where?text=...}: where a text is stored, {@code table.column} to rows, in every column of
 * the schema ({@link SchemaSearch}), for integration tests of erasure and retention against the server's own database
 * (H2 in the server cannot be opened from the test). Only in the testing WAR, and only where
 * {@code mailroom.testing.clock-control=true} (the switch of the testing endpoints): elsewhere 404.
 */
@Path("/v1/testing/where")
@Produces(MediaType.APPLICATION_JSON)
public class TestingSchemaSearchResource {

    @Inject
    @ConfigProperty(name = "mailroom.testing.clock-control", defaultValue = "false")
    boolean enabled;
    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    @GET
    @Transactional
    public Response where(@QueryParam("text") String text) {
        if (!enabled) {
            return Response.status(Response.Status.NOT_FOUND).build();
        }
        if (text == null || text.length() < 3) {
            throw new Refused.Invalid("text_required", "search for a text of 3 characters or more: ?text=...");
        }
        Map<String, Long> found = SchemaSearch.whereIs(em, text);
        return Response.ok(found).build();
    }
}
