package dev.mailroom.it.support;

import dev.mailroom.testsupport.SmtpTestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Mailroom on Open Liberty for the integration tests: the same WAR against a single Artemis broker
 * ({@link ArtemisBroker#startSingle}), a loopback SMTP relay and an alert receiver, with the settings the WildFly
 * executions run with ({@link ItSettings}). {@code mailroom.it.work-dir} and {@code mailroom.it.port-offset} as for
 * {@link ItEnvironment}. {@link #close()} stops the server first, then what it uses.
 */
public final class LibertyEnvironment implements Mailroom, AutoCloseable {

    private ArtemisBroker broker;
    private SmtpTestServer smtp;
    private AlertReceiver alerts;
    private LibertyServer server;
    private JmsClient jms;
    private ApiClient api;

    private LibertyEnvironment() {
    }

    /** Starts broker, relay, alert receiver and server; on a failure, stops what had started. */
    public static LibertyEnvironment start() {
        Path work = ItEnvironment.workDir();
        int offset = ItEnvironment.configuredPortOffset();
        LibertyEnvironment env = new LibertyEnvironment();
        try {
            Path dir = work.resolve("liberty-settings");
            PostgresServer.deleteTree(dir);
            Files.createDirectories(dir);
            env.broker = ArtemisBroker.startSingle(work, offset);
            env.smtp = SmtpTestServer.start();
            env.alerts = AlertReceiver.start();
            Map<String, String> settings = new LinkedHashMap<>(ItSettings.smtp(env.smtp.port()));
            settings.putAll(ItSettings.operations(env.alerts.url(), dir));
            env.server = LibertyServer.start(work, offset, env.broker.port(), env.broker.consoleUrl(), settings);
            env.api = new ApiClient(env.server.baseUrl());
            return env;
        } catch (IOException e) {
            env.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            env.close();
            throw e;
        }
    }

    @Override
    public LibertyServer server() {
        return server;
    }

    @Override
    public SmtpTestServer smtp() {
        return smtp;
    }

    /** The broker outlives the server's restarts, so one client serves the whole run. */
    @Override
    public synchronized JmsClient jms() {
        if (jms == null || jms.isClosed()) {
            jms = new JmsClient("tcp://127.0.0.1:" + broker.port(), ArtemisBroker.MAILROOM_USER,
                    ArtemisBroker.MAILROOM_PASSWORD);
        }
        return jms;
    }

    @Override
    public ApiClient api() {
        return api;
    }

    @Override
    public AlertReceiver alerts() {
        return alerts;
    }

    @Override
    public synchronized void close() {
        if (jms != null) {
            jms.close();
        }
        if (server != null) {
            server.close();
        }
        if (alerts != null) {
            alerts.close();
        }
        if (smtp != null) {
            smtp.close();
        }
        if (broker != null) {
            broker.close();
        }
    }
}
