package dev.mailroom.redrive;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.util.logging.Logger;

/**
 * At start: a run this node was carrying out when it went down is {@code interrupted}, so an operator
 * sees it and resumes or abandons it (nothing resumes by itself: the world may have changed). A run left
 * by a node that does not come back is another matter: {@link RedriveTakeover} resumes it on a live node.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
public class RedriveRecovery {

    private static final Logger LOG = Logger.getLogger(RedriveRecovery.class.getName());

    @Inject
    RedriveSteps steps;
    @Inject
    dev.mailroom.platform.lease.Leases leases;

    @PostConstruct
    void markInterrupted() {
        int n = steps.interruptRunsOf(leases.node());
        if (n > 0) {
            LOG.warning(() -> n + " redrive run(s) were running when this server stopped: marked interrupted;"
                    + " resume or abandon them (POST /api/v1/redrives/{id}/resume or /abandon)");
        }
    }
}
