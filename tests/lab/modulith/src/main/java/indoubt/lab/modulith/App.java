package indoubt.lab.modulith;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.modulith.events.CompletedEventPublications;
import org.springframework.modulith.events.IncompleteEventPublications;
import org.springframework.modulith.events.core.EventPublicationRegistry;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Spring Boot application whose events go through Spring Modulith's JDBC event
 * publication registry, for indoubt's tests: each command publishes or resubmits through
 * the framework's own code paths, with one listener of the event running.
 *
 * <pre>
 *   App publish  listener=NAME count=N [fixed=true]
 *   App resubmit listener=NAME [ids=UUID,UUID...] [times=N] [fixed=true]
 *   App completed
 * </pre>
 *
 * Spring's own settings come as {@code --spring.datasource.url=…} (the run script passes
 * them). The registry's schema is created by Spring Modulith itself
 * ({@code spring.modulith.events.jdbc.schema-initialization.enabled}); completion mode is
 * the default (UPDATE: completed publications stay, with their completion date).
 *
 * <h2>Listeners ({@code listener=NAME}: the only one of the event that runs)</h2>
 * <ul>
 * <li>{@code ok}: {@code indoubt.lab.modulith.Shipping.on(indoubt.lab.modulith.OrderPlaced)}
 *     completes.
 * <li>{@code throws}: {@code Invoicing.on(OrderPlaced)} throws (the publication stays
 *     incomplete; 2.x marks it FAILED) unless {@code fixed=true}.
 * <li>{@code dies}: {@code Packing.on(OrderPlaced)} halts the JVM inside the listener
 *     ({@code Runtime.halt}: the publication stays incomplete; 2.x leaves it PROCESSING).
 * <li>{@code old}: {@code Billing.on(OrderPlaced)} throws, as {@code throws}.
 * <li>{@code new}: {@code Accounting.on(OrderPlaced)}, the same listener renamed, completes:
 *     the registry no longer knows {@code Billing}'s publications' listener.
 * </ul>
 *
 * <h2>Commands</h2>
 * <ul>
 * <li>{@code publish}: {@code count} events, each in a transaction of its own.
 * <li>{@code completed}: how many completed publications the registry holds, as
 *     {@code CompletedEventPublications.findAll} finds them.
 * <li>{@code resubmit}: {@code IncompleteEventPublications.resubmitIncompletePublications}
 *     with a filter of these ids (every incomplete one without {@code ids}), {@code times}
 *     times (each one counts an attempt in 2.x).
 * </ul>
 *
 * <h2>Lines printed (stdout, {@code KIND key=value…})</h2>
 * <ul>
 * <li>{@code published n=N}: the events were published (their listeners ran).
 * <li>{@code resubmitted times=N}.
 * <li>{@code completed n=N}.
 * <li>{@code incomplete id=UUID listener=ID}: each publication the registry holds incomplete
 *     at the end, as {@code EventPublicationRegistry.findIncompletePublications} finds it.
 * <li>{@code halting: WHERE}: the JVM halts now (exit 1).
 * <li>{@code done}.
 * </ul>
 */
@SpringBootApplication
public class App implements CommandLineRunner {

    private final ApplicationEventPublisher events;
    private final TransactionTemplate transactions;
    private final IncompleteEventPublications incomplete;
    private final EventPublicationRegistry registry;
    private final CompletedEventPublications completed;

    App(ApplicationEventPublisher events, TransactionTemplate transactions,
        IncompleteEventPublications incomplete, EventPublicationRegistry registry,
        CompletedEventPublications completed) {
        this.events = events;
        this.transactions = transactions;
        this.incomplete = incomplete;
        this.registry = registry;
        this.completed = completed;
    }

    public static void main(String[] args) {
        Map<String, String> opts = options(args);
        SpringApplication app = new SpringApplication(App.class);
        Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put("spring.main.banner-mode", "off");
        defaults.put("spring.main.web-application-type", "none");
        defaults.put("logging.level.root", "WARN");
        defaults.put("spring.modulith.events.jdbc.schema-initialization.enabled", "true");
        defaults.put("indoubt.listener", opts.getOrDefault("listener", "ok"));
        defaults.put("indoubt.fixed", opts.getOrDefault("fixed", "false"));
        app.setDefaultProperties(defaults);
        // Spring reads the --options; the command and key=value pairs are the runner's.
        app.run(args);
        say("done");
        System.exit(0);
    }

    @Override
    public void run(String... args) {
        Map<String, String> opts = options(args);
        String command = Arrays.stream(args).filter(a -> !a.startsWith("--") && !a.contains("="))
            .findFirst().orElseThrow(() -> new IllegalArgumentException("a command: publish or resubmit"));
        switch (command) {
            case "publish" -> {
                int n = Integer.parseInt(opts.getOrDefault("count", "1"));
                for (int i = 0; i < n; i++) {
                    long order = System.nanoTime();
                    transactions.executeWithoutResult(status -> events.publishEvent(new OrderPlaced(order)));
                }
                say("published n=" + n);
            }
            case "resubmit" -> {
                int times = Integer.parseInt(opts.getOrDefault("times", "1"));
                String ids = opts.get("ids");
                Set<UUID> only = ids == null ? null
                    : Arrays.stream(ids.split(",")).map(UUID::fromString).collect(Collectors.toSet());
                for (int i = 0; i < times; i++) {
                    incomplete.resubmitIncompletePublications(p -> only == null || only.contains(p.getIdentifier()));
                }
                say("resubmitted times=" + times);
            }
            case "completed" -> say("completed n=" + completed.findAll().size());
            default -> throw new IllegalArgumentException("unknown command " + command);
        }
        registry.findIncompletePublications().forEach(p ->
            say("incomplete id=" + p.getIdentifier() + " listener=" + p.getTargetIdentifier().getValue()));
    }

    static Map<String, String> options(String[] args) {
        Map<String, String> opts = new LinkedHashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (!a.startsWith("--") && eq > 0) {
                opts.put(a.substring(0, eq), a.substring(eq + 1));
            }
        }
        return opts;
    }

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** The event every listener takes. */
    public record OrderPlaced(long orderId) {}

    static void work(boolean fails, String who) {
        if (fails) {
            throw new IllegalStateException(who + " is down");
        }
    }

    @Component
    @ConditionalOnProperty(name = "indoubt.listener", havingValue = "ok")
    static class Shipping {
        @TransactionalEventListener
        void on(OrderPlaced event) {}
    }

    @Component
    @ConditionalOnProperty(name = "indoubt.listener", havingValue = "throws")
    static class Invoicing {
        private final boolean fixed;

        Invoicing(org.springframework.core.env.Environment env) {
            this.fixed = env.getProperty("indoubt.fixed", Boolean.class, false);
        }

        @TransactionalEventListener
        void on(OrderPlaced event) {
            work(!fixed, "invoicing");
        }
    }

    @Component
    @ConditionalOnProperty(name = "indoubt.listener", havingValue = "dies")
    static class Packing {
        @TransactionalEventListener
        void on(OrderPlaced event) {
            say("halting: inside Packing.on");
            Runtime.getRuntime().halt(1);
        }
    }

    @Component
    @ConditionalOnProperty(name = "indoubt.listener", havingValue = "old")
    static class Billing {
        @TransactionalEventListener
        void on(OrderPlaced event) {
            work(true, "billing");
        }
    }

    @Component
    @ConditionalOnProperty(name = "indoubt.listener", havingValue = "new")
    static class Accounting {
        @TransactionalEventListener
        void on(OrderPlaced event) {}
    }
}
