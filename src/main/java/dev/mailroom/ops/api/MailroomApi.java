package dev.mailroom.ops.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** Mailroom's REST API, under {@code /mailroom/api/v1}. */
@ApplicationPath("/api")
public class MailroomApi extends Application {
}
