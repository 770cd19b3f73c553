package dev.mailroom.platform.settings;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.interceptor.Interceptor;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * Reads every concern's settings at deployment ({@link CheckedAtBoot}) and refuses the deployment when one cannot be
 * used: each refused setting is one log line naming the key, the value and the accepted syntax, and the deployment
 * fails with all of them. It runs before the application's other start-up observers, so a server with a bad
 * setting never runs and then fails its first job.
 */
@ApplicationScoped
public class SettingsGate {

    private static final Logger LOG = Logger.getLogger(SettingsGate.class.getName());

    void atDeployment(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) @Initialized(ApplicationScoped.class)
                      Object ignored, @Any Instance<CheckedAtBoot> concerns) {
        check(concerns);
    }

    /**
     * Checks every concern, all of them even after a failure (an operator fixes every bad value in one go).
     *
     * @throws DeploymentException listing every refused setting
     */
    public static void check(Iterable<? extends CheckedAtBoot> concerns) {
        List<String> refused = new ArrayList<>();
        for (CheckedAtBoot concern : concerns) {
            try {
                concern.checkSettings();
            } catch (RuntimeException e) {
                String reason = reason(e);
                LOG.severe("Mailroom setting refused: " + reason);
                refused.add(reason);
            }
        }
        if (!refused.isEmpty()) {
            throw new DeploymentException("Mailroom does not start: " + refused.size() + " setting"
                    + (refused.size() == 1 ? "" : "s") + " cannot be used: " + String.join("; ", refused));
        }
    }

    /**
     * The message that names the setting: an {@link InvalidSetting} in the chain, else the outermost argument error
     * (a reader that catches a parser's error adds the key around it).
     */
    static String reason(Throwable e) {
        String argument = null;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof InvalidSetting) {
                return t.getMessage();
            }
            if (argument == null && (t instanceof IllegalArgumentException || t instanceof IllegalStateException)) {
                argument = t.getMessage();
            }
        }
        return argument != null ? argument : String.valueOf(e);
    }
}
