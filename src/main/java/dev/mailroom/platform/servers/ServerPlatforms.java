package dev.mailroom.platform.servers;

import dev.mailroom.platform.MdbQueues;
import dev.mailroom.platform.ServerPlatform;

import dev.mailroom.platform.liberty.LibertyPlatform;
import dev.mailroom.platform.wildfly.WildFlyPlatform;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.logging.Logger;

/**
 * Chooses the {@link ServerPlatform} at run time from the system properties each server sets for itself
 * ({@code wlp.install.dir} on Open Liberty, {@code jboss.home.dir} on WildFly): the same WAR runs on both.
 */
@ApplicationScoped
public class ServerPlatforms {

    private static final Logger LOG = Logger.getLogger(ServerPlatforms.class.getName());

    /** The servers Mailroom knows, by the system property that says Mailroom runs in it. */
    public enum Kind {
        OPEN_LIBERTY("wlp.install.dir"),
        WILDFLY("jboss.home.dir");

        private final String marker;

        Kind(String marker) {
            this.marker = marker;
        }

        /** The server these properties come from; refused when none of Mailroom's servers set them. */
        public static Kind of(java.util.function.UnaryOperator<String> systemProperty) {
            for (Kind k : values()) {
                if (systemProperty.apply(k.marker) != null) {
                    return k;
                }
            }
            throw new IllegalStateException("Mailroom runs on WildFly or Open Liberty; neither of the system properties "
                    + "jboss.home.dir and wlp.install.dir is set");
        }
    }

    @Inject
    MdbQueues mdbQueues;

    @Produces
    @ApplicationScoped
    ServerPlatform platform() {
        Kind kind = Kind.of(System::getProperty);
        LOG.info(() -> "running on " + kind);
        return switch (kind) {
            case OPEN_LIBERTY -> new LibertyPlatform(mdbQueues);
            case WILDFLY -> new WildFlyPlatform();
        };
    }
}
