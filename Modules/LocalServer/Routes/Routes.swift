import Hummingbird

/// Assembles the operation table and the Hummingbird router.
enum Routes {
  /// Every operation of the contract, plus `/avatars/*` and, in dev mode, `/_dev/*`.
  static func table(devMode: Bool) -> RouteTable {
    var table = RouteTable()
    table.addAuthRoutes()
    table.addMeRoutes()
    table.addQuestionRoutes()
    table.addBoardRoutes()
    table.addReportRoutes()
    table.addNotificationRoutes()
    table.addGroupRoutes()
    table.addChatRoutes()
    table.addAnalyticsRoutes()
    table.addAdminRoutes()
    if devMode {
      table.addDevRoutes()
    }
    return table
  }

  /// The router: envelope and in-flight tracking around everything, faults in dev mode, then
  /// one route group per operation with the middleware of its pipeline (`HTTP/Pipeline.swift`).
  static func router(
    _ table: RouteTable, core: ServerCore, inFlight: InProgress<Void>
  ) -> Router<QappleRequestContext> {
    let router = Router(context: QappleRequestContext.self)
    router.add(middleware: InFlightMiddleware(requests: inFlight))
    // Every request at debug level (`--log-level debug`); tokens never reach the log.
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(
      middleware: ErrorEnvelopeMiddleware(
        routes: table, maxBodySize: core.configuration.maxBodySize, logger: core.logger))
    if core.configuration.devMode {
      router.add(middleware: FaultMiddleware(routes: table, faults: core.faults))
    }
    for (operation, handler) in table.entries {
      let group = router.group()
      // The caller first: a body is read only for a caller allowed to send it, so a request
      // without a valid token is refused at its head instead of after up to the body limit.
      if operation.access != .anyone {
        group.add(
          middleware: AuthenticationMiddleware(
            engine: core.engine, adminOnly: operation.access == .admin))
      }
      if operation.isWrite {
        group.add(middleware: BodyMiddleware(limit: core.configuration.maxBodySize))
      }
      // A repeat gets its stored answer before the write limit counts it: the limit applies to
      // writes, and a replay writes nothing (nor answers 429 where the first call did not).
      if operation.idempotent {
        group.add(
          middleware: IdempotencyMiddleware(
            operation: operation.id, engine: core.engine, logger: core.logger))
      }
      if operation.isWrite, let bucket = operation.rateBucket, let limiter = core.rateLimiter {
        group.add(
          middleware: RateLimitMiddleware(
            limiter: limiter, bucket: bucket, engine: core.engine, isRepeat: operation.isRepeat))
      }
      group.on(
        operation.path, method: operation.method,
        responder: HandlerResponder(handler: handler, core: core))
    }
    return router
  }
}
