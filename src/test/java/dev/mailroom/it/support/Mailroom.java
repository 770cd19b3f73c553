package dev.mailroom.it.support;

import dev.mailroom.testsupport.SmtpTestServer;

/**
 * "A Mailroom" as an integration test drives it, on whichever server: the server, the SMTP relay it sends to, a JMS
 * client on its broker, its REST API as the operator, and the receiver of its alerts. {@link ItEnvironment} is one on
 * WildFly, {@link LibertyEnvironment} one on Open Liberty, both with the settings of {@link ItSettings}; a scenario
 * body that takes a Mailroom runs unchanged on both.
 */
public interface Mailroom {

    MailroomServer server();

    SmtpTestServer smtp();

    /** A JMS client on the broker Mailroom consumes from (usable again after the server restarted). */
    JmsClient jms();

    ApiClient api();

    AlertReceiver alerts();
}
