package dev.mailroom.send;

import dev.mailroom.platform.MdbQueues;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;

/**
 * The send MDBs of this deployment and the queue each consumes, for a server whose configuration keeps that to
 * itself (Open Liberty's activation specs, server-config/liberty/server.xml, which must agree with this).
 */
@ApplicationScoped
public class SendMdbs implements MdbQueues {

    @Override
    public Map<String, List<String>> mdbsByQueue() {
        return Map.of(
                new SendConsumer().queue(), List.of(SendConsumer.class.getSimpleName()),
                new BulkSendConsumer().queue(), List.of(BulkSendConsumer.class.getSimpleName()));
    }
}
