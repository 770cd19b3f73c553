package dev.mailroom.examples.producer;

import jakarta.inject.Inject;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;

/** The example producer's HTTP face, for the IT to drive it: place an order, confirm again, ask for the row. */
@Path("orders")
public class OrderResource {

    /** The producer WAR's JAX-RS application. */
    @ApplicationPath("/")
    public static class ProducerApplication extends Application {
    }

    @Inject
    Orders orders;

    @POST
    @Path("{id}")
    public Response place(@PathParam("id") String id, @QueryParam("email") String email,
            @QueryParam("fail") boolean fail) throws SQLException {
        try {
            return Response.ok(orders.place(id, email, fail)).build();
        } catch (IllegalStateException e) {
            return Response.status(409).entity(e.getMessage()).build();
        }
    }

    @POST
    @Path("{id}/confirmation")
    public Response confirmAgain(@PathParam("id") String id, @QueryParam("email") String email,
            @QueryParam("message_id") String messageId, @QueryParam("broker_dedup") @DefaultValue("true") boolean dedup) {
        try {
            return Response.ok(orders.confirmAgain(id, email, messageId, dedup)).build();
        } catch (Exception e) {
            // the transaction did not commit: say why rather than a bare 500
            return Response.status(409).entity(e.toString()).build();
        }
    }

    @GET
    @Path("{id}")
    public Response exists(@PathParam("id") String id) throws SQLException {
        return orders.exists(id) ? Response.ok(id).build() : Response.status(404).build();
    }
}
