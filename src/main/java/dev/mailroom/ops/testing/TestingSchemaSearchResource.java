package dev.mailroom.ops.testing;

import dev.mailroom.platform.Refused;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
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

    /**
     * {@code POST /api/v1/testing/where/references?table=mail_job&suffix=job_id} with a JSON array of ids: every
     * column that points at those rows ({@link SchemaSearch#referencesTo}), to the rows still pointing.
     */
    @POST
    @Path("/references")
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional
    public Response references(@QueryParam("table") String table, @QueryParam("suffix") String suffix, List<Long> ids) {
        if (!enabled) {
            return Response.status(Response.Status.NOT_FOUND).build();
        }
        if (table == null || !table.matches("[a-z_]{1,60}") || suffix == null || !suffix.matches("[a-z_]{2,60}")) {
            throw new Refused.Invalid("table_required", "name a table and a column suffix in lower case: "
                    + "?table=mail_job&suffix=job_id");
        }
        if (ids == null || ids.isEmpty()) {
            throw new Refused.Invalid("ids_required", "post the ids as a JSON array of numbers");
        }
        return Response.ok(SchemaSearch.referencesTo(em, table, suffix, ids)).build();
    }
}
