package dev.mailroom.send;

import dev.mailroom.job.Incoming;
import dev.mailroom.stopline.QueueHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The send path for the stop-the-line probe: one delivery, handled as a consumer handles it. */
@ApplicationScoped
public class SendQueueHandler implements QueueHandler {

    @Inject
    SendService sendService;

    @Override
    public void handle(Incoming delivery) {
        sendService.handle(delivery);
    }
}
