package indoubt.lab.operaton;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import jakarta.ws.rs.ApplicationPath;
import org.operaton.bpm.engine.ExternalTaskService;
import org.operaton.bpm.engine.HistoryService;
import org.operaton.bpm.engine.ManagementService;
import org.operaton.bpm.engine.ProcessEngine;
import org.operaton.bpm.engine.RuntimeService;
import org.operaton.bpm.engine.delegate.DelegateExecution;
import org.operaton.bpm.engine.delegate.JavaDelegate;
import org.operaton.bpm.engine.externaltask.ExternalTask;
import org.operaton.bpm.engine.externaltask.LockedExternalTask;
import org.operaton.bpm.engine.history.HistoricProcessInstance;
import org.operaton.bpm.engine.impl.context.Context;
import org.operaton.bpm.engine.impl.persistence.entity.JobEntity;
import org.operaton.bpm.engine.runtime.Incident;
import org.operaton.bpm.engine.runtime.Job;
import org.operaton.bpm.engine.runtime.ProcessInstance;
import org.glassfish.jersey.server.ServerProperties;
import org.operaton.bpm.spring.boot.starter.rest.OperatonJerseyResourceConfig;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * The Operaton engine (Camunda 7's Apache-2.0 fork) embedded in Spring Boot with its REST
 * API, for indoubt's tests: each command starts processes through the engine's own API
 * and leaves one stuck state that the engine itself made; {@code serve} runs the engine
 * with its REST API so a fix sent there is carried out (and checked) by the engine.
 *
 * <pre>
 *   App fail-job      key=K
 *   App burn-job      key=K
 *   App fail-external key=K worker=W
 *   App lock-external key=K worker=W [lock_ms=N]
 *   App die-in-job    key=K [lock_ms=N]
 *   App serve         port=P [fixed=true]
 *   App state
 * </pre>
 *
 * Spring's own settings come as {@code --spring.datasource.url=…} (the run script passes
 * {@code db=} so). The engine makes its schema itself ({@code databaseSchemaUpdate true}:
 * a second command on the same database uses it as it is) and deploys
 * {@code indoubt/lab/operaton/orders.bpmn} (deployment {@code indoubt-lab-orders}, the
 * resource named so; with duplicate filtering: an unchanged file is not deployed again).
 * History level full; ids are the Spring Boot starter's UUIDs; no webapp, no admin user,
 * no metrics. The engine writes its times (TIMESTAMP WITHOUT TIME ZONE) in the JVM's
 * time zone.
 *
 * <h2>Processes (orders.bpmn; each started with the business key {@code key=})</h2>
 * <ul>
 * <li>{@code payment}: service task {@code charge}, asyncBefore, job priority 10, retry
 *     cycle {@code R2/PT1S}; its delegate ({@code Charge}) throws
 *     {@code IllegalStateException("card declined for order K")} unless {@code fixed=true}.
 * <li>{@code renewal}: service task {@code renewalCharge}, the same delegate, priority
 *     20, retry cycle {@code R5/PT1H}.
 * <li>{@code shipping}: external task {@code ship} on topic {@code ship}.
 * <li>{@code packing}: service task {@code pack}, asyncBefore, priority 30; its delegate
 *     ({@code Pack}) halts the JVM in {@code die-in-job}; in any other command it acts as
 *     {@code Charge} (completes with {@code fixed=true}, else throws
 *     {@code "packing station offline for order K"}).
 * </ul>
 *
 * <h2>Commands</h2>
 * <ul>
 * <li>{@code fail-job}: starts {@code payment}; the job executor (acquiring priority 10
 *     only) runs {@code charge} until the engine raises the failedJob incident (bounded:
 *     30 s).
 * <li>{@code burn-job}: starts {@code renewal}; the job executor (priority 20 only) runs
 *     it once: the job is left with retries 4, its exception, and a due date an hour
 *     ahead.
 * <li>{@code fail-external}: starts {@code shipping}, fetchAndLock as worker {@code W}
 *     (lock 60 s, this business key only), then handleFailure with
 *     {@code "carrier API returned 503"}, error details (a real stack trace), retries 0,
 *     retry timeout 0: the engine raises the failedExternalTask incident.
 * <li>{@code lock-external}: starts {@code shipping}, fetchAndLock as worker {@code W}
 *     with a lock of {@code lock_ms} (default 1000) and exits without completing: a worker
 *     that is gone.
 * <li>{@code die-in-job}: starts {@code packing}; the job executor (priority 30 only, lock
 *     time {@code lock_ms}, default 2000) acquires the job and its delegate halts the JVM
 *     inside the job's transaction: the job keeps LOCK_OWNER_ and LOCK_EXP_TIME_ (soon in
 *     the past) and its retries unchanged. Exit 1. Run again on the same database, its
 *     job executor may acquire the first one's job (lock expired) and halt in that one:
 *     the loop such a job makes.
 * <li>{@code serve}: the REST API at {@code http://127.0.0.1:P/engine-rest} (127.0.0.1 only,
 *     no authentication) and the job executor acquiring every job, until killed. With
 *     {@code fixed=true} the delegates complete and an in-process worker
 *     ({@code indoubt-lab-serve}) fetches and completes every {@code ship} task it can
 *     lock, every 500 ms; without it no worker runs (a task can then be completed through
 *     the REST API: {@code POST /engine-rest/external-task/fetchAndLock} and
 *     {@code POST /engine-rest/external-task/{id}/complete} with the same workerId).
 * <li>{@code state}: what the engine says (its query API), for checking after a fix.
 * </ul>
 * Only {@code fail-job}, {@code burn-job}, {@code die-in-job} and {@code serve} run a job
 * executor; the others start none.
 *
 * <h2>Lines printed (stdout, {@code KIND key=value… [message=text to the end of the line]})</h2>
 * Absent values print as {@code none}; times as ISO-8601 instants (UTC).
 * <ul>
 * <li>{@code incident id=ID type=failedJob job=JOB process_instance=PI business_key=K
 *     activity=charge message=TEXT} (fail-job).
 * <li>{@code incident id=ID type=failedExternalTask external_task=TASK process_instance=PI
 *     business_key=K activity=ship message=TEXT} (fail-external).
 * <li>{@code job id=ID retries=N process_instance=PI due=TIME message=TEXT} (burn-job).
 * <li>{@code external_task id=ID worker=W process_instance=PI lock_expires=TIME}
 *     (lock-external).
 * <li>{@code job id=ID process_instance=PI retries=N lock_owner=OWNER lock_expires=TIME}
 *     then {@code halting: in job} (die-in-job, from inside the job: the JVM halts, exit 1).
 * <li>{@code serving url=http://127.0.0.1:P/engine-rest} (serve, once the API answers), then
 *     {@code completed external_task=ID business_key=K} for each task its worker completes.
 * <li>state: {@code incident id=ID type=TYPE configuration=JOB_OR_TASK process_instance=PI
 *     activity=A message=TEXT} per open incident; {@code job id=ID retries=N
 *     process_instance=PI due=TIME lock_owner=OWNER lock_expires=TIME message=EXCEPTION} per
 *     job (message=none without an exception); {@code external_task id=ID retries=N
 *     worker=W process_instance=PI lock_expires=TIME message=ERROR} per external task
 *     (retries=none before any failure); {@code instance id=PI business_key=K
 *     definition=KEY state=STATE ended=true|false} per process instance, from the history
 *     (STATE as HistoricProcessInstance.getState: ACTIVE, COMPLETED, …).
 * <li>{@code done}: the command finished (exit 0). On an error: a stack trace on stderr,
 *     exit 2.
 * </ul>
 */
@SpringBootApplication
public class App {

    static final String BPMN = "indoubt/lab/operaton/orders.bpmn";

    static final String REST_AUTOCONFIG =
        "org.operaton.bpm.spring.boot.starter.rest.OperatonBpmRestJerseyAutoConfiguration,"
        + "org.springframework.boot.autoconfigure.jersey.JerseyAutoConfiguration";

    public static void main(String[] args) {
        int status = 0;
        try {
            status = run(args);
        } catch (Throwable e) {
            e.printStackTrace();
            status = 2;
        }
        System.exit(status);
    }

    static int run(String[] args) throws Exception {
        Map<String, String> opts = options(args);
        String command = Arrays.stream(args).filter(a -> !a.startsWith("--") && !a.contains("="))
            .findFirst().orElseThrow(() -> new IllegalArgumentException(
                "a command: fail-job, burn-job, fail-external, lock-external, die-in-job, serve or state"));
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("spring.main.banner-mode", "off");
        props.put("spring.datasource.hikari.maximum-pool-size", "4");
        props.put("operaton.bpm.database.schema-update", "true");
        props.put("operaton.bpm.history-level", "full");
        props.put("operaton.bpm.metrics.enabled", "false");
        props.put("operaton.bpm.metrics.db-reporter-activate", "false");
        props.put("operaton.bpm.eventing.execution", "false");
        props.put("operaton.bpm.eventing.task", "false");
        props.put("operaton.bpm.eventing.history", "false");
        props.put("operaton.bpm.auto-deployment-enabled", "false");
        props.put("operaton.bpm.job-executor-acquire-by-priority", "true");
        props.put("operaton.bpm.job-execution.core-pool-size", "1");
        props.put("operaton.bpm.job-execution.max-pool-size", "2");
        props.put("operaton.bpm.job-execution.wait-time-in-millis", "250");
        props.put("operaton.bpm.job-execution.max-wait", "1000");
        props.put("indoubt.command", command);
        props.put("indoubt.fixed", opts.getOrDefault("fixed", "false"));
        String priority = switch (command) {
            case "fail-job" -> "10";
            case "burn-job" -> "20";
            case "die-in-job" -> "30";
            default -> null;
        };
        if (priority != null) {
            props.put("operaton.bpm.generic-properties.properties.job-executor-priority-range-min", priority);
            props.put("operaton.bpm.generic-properties.properties.job-executor-priority-range-max", priority);
        }
        if (command.equals("die-in-job")) {
            props.put("operaton.bpm.job-execution.lock-time-in-millis", opts.getOrDefault("lock_ms", "2000"));
        }
        if (priority == null && !command.equals("serve")) {
            props.put("operaton.bpm.job-execution.enabled", "false");
        }
        if (command.equals("serve")) {
            props.put("spring.main.web-application-type", "servlet");
            props.put("server.address", "127.0.0.1");
            props.put("server.port", required(opts, "port"));
        } else {
            props.put("spring.main.web-application-type", "none");
            props.put("spring.autoconfigure.exclude", REST_AUTOCONFIG);
        }
        SpringApplication app = new SpringApplication(App.class);
        app.setDefaultProperties(props);
        // Spring reads the --options; the command and key=value pairs are this class's.
        ConfigurableApplicationContext context = app.run(args);
        ProcessEngine engine = context.getBean(ProcessEngine.class);
        // Deployed here rather than by the starter's auto-deployment, which names the resource
        // by its file's absolute path (the build's cache directory: a new build would deploy
        // new versions); unchanged, it is not deployed again.
        engine.getRepositoryService().createDeployment().name("indoubt-lab-orders")
            .addClasspathResource(BPMN).enableDuplicateFiltering(false).deploy();
        switch (command) {
            case "fail-job" -> failJob(engine, required(opts, "key"));
            case "burn-job" -> burnJob(engine, required(opts, "key"));
            case "fail-external" -> failExternal(engine, required(opts, "key"), required(opts, "worker"));
            case "lock-external" -> lockExternal(engine, required(opts, "key"), required(opts, "worker"),
                Long.parseLong(opts.getOrDefault("lock_ms", "1000")));
            case "die-in-job" -> {
                engine.getRuntimeService().startProcessInstanceByKey("packing", required(opts, "key"));
                // The job executor runs the job and Pack halts the JVM from inside it.
                Thread.sleep(30_000);
                throw new IllegalStateException("the packing job did not run within 30 s");
            }
            case "serve" -> {
                say("serving url=http://127.0.0.1:" + opts.get("port") + "/engine-rest");
                if (Boolean.parseBoolean(opts.getOrDefault("fixed", "false"))) {
                    worker(engine.getExternalTaskService());
                } else {
                    Thread.currentThread().join();
                }
            }
            case "state" -> state(engine);
            default -> throw new IllegalArgumentException("unknown command " + command);
        }
        say("done");
        return 0;
    }

    static void failJob(ProcessEngine engine, String key) throws InterruptedException {
        ProcessInstance pi = engine.getRuntimeService().startProcessInstanceByKey("payment", key);
        Incident incident = waitFor("the failedJob incident", () -> engine.getRuntimeService()
            .createIncidentQuery().processInstanceId(pi.getId()).incidentType("failedJob").singleResult());
        say("incident id=" + incident.getId() + " type=" + incident.getIncidentType()
            + " job=" + incident.getConfiguration() + " process_instance=" + pi.getId()
            + " business_key=" + key + " activity=" + incident.getActivityId()
            + " message=" + incident.getIncidentMessage());
    }

    static void burnJob(ProcessEngine engine, String key) throws InterruptedException {
        ProcessInstance pi = engine.getRuntimeService().startProcessInstanceByKey("renewal", key);
        Job job = waitFor("the job's first failure", () -> engine.getManagementService()
            .createJobQuery().processInstanceId(pi.getId()).withException().singleResult());
        say("job id=" + job.getId() + " retries=" + job.getRetries() + " process_instance=" + pi.getId()
            + " due=" + time(job.getDuedate()) + " message=" + job.getExceptionMessage());
    }

    static void failExternal(ProcessEngine engine, String key, String worker) throws InterruptedException {
        ExternalTaskService tasks = engine.getExternalTaskService();
        ProcessInstance pi = engine.getRuntimeService().startProcessInstanceByKey("shipping", key);
        LockedExternalTask task = fetch(tasks, worker, key, 60_000);
        String details;
        try {
            Carrier.book(key);
            throw new IllegalStateException("unreachable");
        } catch (IOException e) {
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            details = trace.toString();
        }
        tasks.handleFailure(task.getId(), worker, "carrier API returned 503", details, 0, 0);
        Incident incident = waitFor("the failedExternalTask incident", () -> engine.getRuntimeService()
            .createIncidentQuery().processInstanceId(pi.getId()).incidentType("failedExternalTask").singleResult());
        say("incident id=" + incident.getId() + " type=" + incident.getIncidentType()
            + " external_task=" + incident.getConfiguration() + " process_instance=" + pi.getId()
            + " business_key=" + key + " activity=" + incident.getActivityId()
            + " message=" + incident.getIncidentMessage());
    }

    static void lockExternal(ProcessEngine engine, String key, String worker, long lockMs) {
        ProcessInstance pi = engine.getRuntimeService().startProcessInstanceByKey("shipping", key);
        LockedExternalTask task = fetch(engine.getExternalTaskService(), worker, key, lockMs);
        ExternalTask locked = engine.getExternalTaskService().createExternalTaskQuery()
            .externalTaskId(task.getId()).singleResult();
        say("external_task id=" + task.getId() + " worker=" + locked.getWorkerId()
            + " process_instance=" + pi.getId() + " lock_expires=" + time(locked.getLockExpirationTime()));
    }

    static LockedExternalTask fetch(ExternalTaskService tasks, String worker, String key, long lockMs) {
        List<LockedExternalTask> locked = tasks.fetchAndLock(1, worker)
            .topic("ship", lockMs).businessKey(key).execute();
        if (locked.size() != 1) {
            throw new IllegalStateException("fetchAndLock found no ship task of business key " + key);
        }
        return locked.get(0);
    }

    /** serve's worker with fixed=true: completes every ship task it can lock. */
    static void worker(ExternalTaskService tasks) throws InterruptedException {
        while (true) {
            for (LockedExternalTask task : tasks.fetchAndLock(10, "indoubt-lab-serve").topic("ship", 30_000).execute()) {
                tasks.complete(task.getId(), "indoubt-lab-serve");
                say("completed external_task=" + task.getId() + " business_key=" + task.getBusinessKey());
            }
            Thread.sleep(500);
        }
    }

    static void state(ProcessEngine engine) {
        RuntimeService runtime = engine.getRuntimeService();
        ManagementService management = engine.getManagementService();
        HistoryService history = engine.getHistoryService();
        for (Incident i : runtime.createIncidentQuery().orderByIncidentTimestamp().asc().list()) {
            say("incident id=" + i.getId() + " type=" + i.getIncidentType() + " configuration=" + i.getConfiguration()
                + " process_instance=" + i.getProcessInstanceId() + " activity=" + i.getActivityId()
                + " message=" + i.getIncidentMessage());
        }
        for (Job j : management.createJobQuery().orderByJobId().asc().list()) {
            JobEntity e = (JobEntity) j;
            say("job id=" + j.getId() + " retries=" + j.getRetries() + " process_instance=" + j.getProcessInstanceId()
                + " due=" + time(j.getDuedate()) + " lock_owner=" + value(e.getLockOwner())
                + " lock_expires=" + time(e.getLockExpirationTime()) + " message=" + value(j.getExceptionMessage()));
        }
        for (ExternalTask t : engine.getExternalTaskService().createExternalTaskQuery().orderById().asc().list()) {
            say("external_task id=" + t.getId() + " retries=" + value(t.getRetries()) + " worker=" + value(t.getWorkerId())
                + " process_instance=" + t.getProcessInstanceId() + " lock_expires=" + time(t.getLockExpirationTime())
                + " message=" + value(t.getErrorMessage()));
        }
        for (HistoricProcessInstance p : history.createHistoricProcessInstanceQuery()
                .orderByProcessInstanceStartTime().asc().list()) {
            say("instance id=" + p.getId() + " business_key=" + value(p.getBusinessKey())
                + " definition=" + p.getProcessDefinitionKey() + " state=" + p.getState()
                + " ended=" + (p.getEndTime() != null));
        }
    }

    static <T> T waitFor(String what, Supplier<T> probe) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            T found = probe.get();
            if (found != null) {
                return found;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " did not come within 30 s");
            }
            Thread.sleep(100);
        }
    }

    static String required(Map<String, String> opts, String name) {
        String v = opts.get(name);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("missing " + name + "=");
        }
        return v;
    }

    static String value(Object v) {
        return v == null ? "none" : v.toString();
    }

    static String time(Date d) {
        return d == null ? "none" : d.toInstant().toString();
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

    /** The carrier fail-external's worker "called": its stack trace is the error details. */
    static final class Carrier {
        static void book(String order) throws IOException {
            throw new IOException("carrier API returned 503 Service Unavailable for order " + order);
        }
    }

    /** The starter's REST configuration without Jersey's WADL (serve only), which wants a
     *  JAXB implementation the application does not have and warns at the first request. */
    @Component
    @ConditionalOnWebApplication
    @ApplicationPath("/engine-rest")
    static class RestConfig extends OperatonJerseyResourceConfig {
        RestConfig() {
            property(ServerProperties.WADL_FEATURE_DISABLE, true);
        }
    }

    /** payment's and renewal's charge. */
    @Component("charge")
    static class Charge implements JavaDelegate {
        private final boolean fixed;

        Charge(Environment env) {
            this.fixed = env.getProperty("indoubt.fixed", Boolean.class, false);
        }

        @Override
        public void execute(DelegateExecution execution) {
            if (!fixed) {
                throw new IllegalStateException("card declined for order " + execution.getProcessBusinessKey());
            }
        }
    }

    /** packing's pack: halts the JVM in die-in-job, from inside the job executor's job. */
    @Component("pack")
    static class Pack implements JavaDelegate {
        private final boolean fixed;
        private final boolean dies;

        Pack(Environment env) {
            this.fixed = env.getProperty("indoubt.fixed", Boolean.class, false);
            this.dies = "die-in-job".equals(env.getProperty("indoubt.command"));
        }

        @Override
        public void execute(DelegateExecution execution) {
            if (dies) {
                JobEntity job = Context.getJobExecutorContext().getCurrentJob();
                say("job id=" + job.getId() + " process_instance=" + execution.getProcessInstanceId()
                    + " retries=" + job.getRetries() + " lock_owner=" + job.getLockOwner()
                    + " lock_expires=" + time(job.getLockExpirationTime()));
                say("halting: in job");
                Runtime.getRuntime().halt(1);
            }
            if (!fixed) {
                throw new IllegalStateException("packing station offline for order " + execution.getProcessBusinessKey());
            }
        }
    }
}
