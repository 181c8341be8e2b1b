import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The notification inbox: newest first, page by page; the unread badge; marking read.
///
/// Tapping a notification marks it read and asks the app to open its ``Domain/DeepLink``
/// through ``onNavigate``; a notification of a kind this version does not know has no link,
/// so it only turns read. Read states change on screen at once; when the server refuses, the
/// old state comes back and the failure is shown.
@MainActor @Observable
public final class NotificationsModel {
  /// The notifications loaded so far, newest first.
  public private(set) var notifications: [AppNotification] = []
  /// How many notifications are unread (the tab's badge), all pages counted.
  public private(set) var unreadCount = 0
  /// Whether a first page ever arrived.
  public private(set) var hasLoaded = false
  /// The first page is loading or a refresh is running.
  public private(set) var isReloading = false
  /// A further page is loading.
  public private(set) var isLoadingMore = false
  /// The last failure, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?
  /// Where the next page starts (`nil` on the last page).
  public private(set) var nextCursor: PageCursor?

  /// Asks the app to open what a notification is about.
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }

  @ObservationIgnored private var generation = 0
  /// How many "mark all read" actions succeeded: one that succeeded while a single mark was on
  /// its way made that notification read whatever the single mark met.
  @ObservationIgnored private var markAllSuccesses = 0
  /// How many "mark all read" actions began, and the number of the newest that succeeded: a
  /// failed one undoes nothing once one that began after it succeeded.
  @ObservationIgnored private var markAllsBegun = 0
  @ObservationIgnored private var newestMarkAllSucceeded = 0
  /// Single read marks on their way, by notification, and the read marks that succeeded while
  /// a first page was on its way, numbered, with what each made read (a mark-all: what was
  /// listed when it began): a page read before one of them reached the service must not show
  /// those notifications unread again. (A mark-all on its way is not applied: the page shows
  /// what the service says until it succeeds.)
  @ObservationIgnored private var marksOnTheirWay: [AppNotification.ID: Int] = [:]
  @ObservationIgnored private var marksSucceeded: [(number: Int, ids: Set<AppNotification.ID>)] =
    []
  @ObservationIgnored private var marksSucceededCount = 0
  /// How many first pages landed: a mark that succeeds after one landed re-reads the badge (the
  /// page's count may have been read before the mark reached the service).
  @ObservationIgnored private var reloadsLanded = 0
  @ObservationIgnored @Dependency(\.notificationRepository) private var repository
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the inbox; ``task()`` loads it (``refreshUnreadCount()`` alone feeds a badge).
  public init() {}

  /// Whether more notifications follow the loaded ones.
  public var hasMore: Bool { nextCursor != nil }
  /// The first page is loading (nothing to show yet).
  public var isLoading: Bool { isReloading && !hasLoaded }
  /// Whether the inbox came back empty: "nothing yet".
  public var isEmpty: Bool { hasLoaded && notifications.isEmpty }

  /// The screen appeared: loads the first page and the unread count.
  public func task() async {
    await analytics.screenViewed("notifications", at: date.now)
    await reload()
  }

  /// The user pulled to refresh; a failure keeps what was shown.
  public func refreshPulled() async {
    await reload()
  }

  /// Reads the unread count again (for the badge; the app calls it when it becomes active);
  /// a failure keeps the last known count and leaves ``failure`` (the inbox's) alone.
  public func refreshUnreadCount() async {
    if let count = await currentUnreadCount() { unreadCount = count }
  }

  /// The row of `notification` appeared; the last one loads the next page.
  public func notificationAppeared(_ notification: AppNotification.ID) async {
    guard notifications.last?.id == notification, let cursor = nextCursor, !isLoadingMore,
      !isReloading
    else { return }
    let (current, markAllsBefore) = (generation, markAllSuccesses)
    isLoadingMore = true
    defer { isLoadingMore = false }
    do {
      var page = try await repository.fetchNotifications(PageRequest(cursor: cursor))
      guard current == generation else { return }
      // A "mark all read" that succeeded while the page was on its way made its notifications
      // read too (they are older than the ones listed), whatever the page still says.
      if markAllSuccesses != markAllsBefore {
        for index in page.items.indices { page.items[index].isRead = true }
      }
      let shown = Set(notifications.map(\.id))
      notifications += page.items.filter { !shown.contains($0.id) }
      nextCursor = page.nextCursor
    } catch is CancellationError {
      // The screen went away; the row appearing again asks again.
    } catch {
      guard current == generation else { return }
      failure = DomainError(error)
    }
  }

  /// The user tapped a notification: it turns read and its place opens (nothing opens for a
  /// kind without a link).
  public func notificationTapped(_ notification: AppNotification.ID) async {
    guard let tapped = notifications.first(where: { $0.id == notification }) else { return }
    if let link = tapped.deepLink { onNavigate(link) }
    await analytics.track(
      "notification_opened",
      [
        "kind": tapped.kind.code?.rawValue ?? "unknown", "has_link": String(tapped.deepLink != nil),
      ],
      at: date.now)
    await markRead(notification)
  }

  /// `notification` was marked read outside this inbox (the app, for a tapped push): its row
  /// turns read, and the badge takes the service's count (counting it off when that cannot be
  /// read and the row was unread). Changes nothing on the service.
  public func notificationReadElsewhere(_ notification: AppNotification.ID) async {
    let wasUnread = notifications.contains { $0.id == notification && !$0.isRead }
    setRead(true, [notification])
    succeeded([notification])
    if let count = await currentUnreadCount() {
      unreadCount = count
    } else if wasUnread {
      unreadCount = max(0, unreadCount - 1)
    }
  }

  /// The user marked one notification read (a swipe action).
  public func markReadButtonTapped(_ notification: AppNotification.ID) async {
    await markRead(notification)
  }

  /// The user tapped "mark all read".
  public func markAllReadButtonTapped() async {
    let unread = Set(notifications.filter { !$0.isRead }.map(\.id))
    guard !unread.isEmpty || unreadCount > 0 else { return }
    // Shown read: also one whose own mark is on its way (and may fail meanwhile).
    let listed = Set(notifications.map(\.id))
    let previousCount = unreadCount
    markAllsBegun += 1
    let number = markAllsBegun
    let landedBefore = reloadsLanded
    setRead(true, unread)
    unreadCount = 0
    do {
      try await repository.markAllRead()
      succeeded(listed)
      markAllSuccesses += 1
      newestMarkAllSucceeded = max(newestMarkAllSucceeded, number)
      setRead(true, listed)
      unreadCount = 0
      await analytics.track(
        "notifications_all_read", ["count": String(previousCount)], at: date.now)
      // A first page that landed while the mark was on its way was read before or after the
      // service marked everything; its rows not listed at the tap (new ones) may be either, so
      // only a new read tells which are still unread.
      if reloadsLanded != landedBefore { await reload() }
    } catch {
      // Only what this action marked goes back, unless a mark-all that began after it
      // succeeded meanwhile, or a first page landed meanwhile (it shows the service's read
      // states, which the failure did not change); the badge takes the service's count when it
      // can be read (a single mark may have landed or failed meanwhile).
      if newestMarkAllSucceeded < number, reloadsLanded == landedBefore {
        setRead(false, unread)
      }
      unreadCount = await currentUnreadCount() ?? previousCount
      failure = DomainError(error)
    }
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  // MARK: - Loading and marking

  private func reload() async {
    generation += 1
    let current = generation
    let marksBefore = marksSucceededCount
    isReloading = true
    defer { if current == generation { isReloading = false } }
    do {
      var page: Page<AppNotification>
      var count: Int?
      while true {
        let markAllsBefore = markAllSuccesses
        page = try await repository.fetchNotifications(.first)
        count = await currentUnreadCount()
        guard current == generation else { return }
        // A "mark all read" that succeeded meanwhile may have reached the service after the
        // page or the count was read (the badge would come back, a new notification would
        // stay unread on screen): only a read that starts after it tells what it covered.
        if markAllSuccesses == markAllsBefore { break }
      }
      notifications = page.items
      reloadsLanded += 1
      // What the user marked read while the page was on its way stays read.
      let later = marksSucceeded.filter { $0.number > marksBefore }.map(\.ids)
      marksSucceeded.removeAll { $0.number <= marksBefore }
      setRead(true, later.reduce(Set(marksOnTheirWay.keys)) { $0.union($1) })
      nextCursor = page.nextCursor
      if let count { unreadCount = count }
      hasLoaded = true
    } catch is CancellationError {
      // The screen went away; its next appearance loads again.
    } catch {
      guard current == generation else { return }
      failure = DomainError(error)
    }
  }

  /// The unread count as the service says now, or `nil` when it cannot be read. A badge is
  /// not worth an error of its own: the caller keeps the last known count, ``failure`` stays
  /// the inbox's, and the next refresh reads the count again.
  private func currentUnreadCount() async -> Int? {
    try? await repository.fetchUnreadCount()
  }

  private func markRead(_ notification: AppNotification.ID) async {
    guard notifications.contains(where: { $0.id == notification && !$0.isRead }) else { return }
    let markAllsBefore = markAllSuccesses
    setRead(true, [notification])
    unreadCount = max(0, unreadCount - 1)
    marksOnTheirWay[notification, default: 0] += 1
    defer {
      marksOnTheirWay[notification, default: 1] -= 1
      if marksOnTheirWay[notification] == 0 { marksOnTheirWay[notification] = nil }
    }
    let landedBefore = reloadsLanded
    do {
      try await repository.markRead(notification)
      succeeded([notification])
      // A page that landed meanwhile took a count that may not have known this mark yet.
      if reloadsLanded != landedBefore { unreadCount = await currentUnreadCount() ?? unreadCount }
    } catch {
      failure = DomainError(error)
      // A "mark all read" that succeeded meanwhile made this notification read; else it is
      // unread again (one still on its way marks it read when it succeeds). The badge takes
      // the service's count when it can be read (a reload or another action may have moved it
      // meanwhile), else counts this one back.
      let undone = markAllSuccesses == markAllsBefore
      if undone { setRead(false, [notification]) }
      unreadCount = await currentUnreadCount() ?? unreadCount + (undone ? 1 : 0)
    }
  }

  /// Notes a read mark that succeeded, making `ids` read, for the first page on its way, if
  /// any (a reload that starts later reads it from the service).
  private func succeeded(_ ids: Set<AppNotification.ID>) {
    guard isReloading else { return }
    marksSucceededCount += 1
    marksSucceeded.append((marksSucceededCount, ids))
  }

  private func setRead(_ isRead: Bool, _ ids: Set<AppNotification.ID>) {
    for index in notifications.indices where ids.contains(notifications[index].id) {
      notifications[index].isRead = isRead
    }
  }
}
