import Testing

@testable import RepositoriesTesting

@Suite("The fakes' chat channel")
struct ChannelPauseTests {
  @Test(
    "after each send in a row that failed for now, the link stays down twice as long, up to 1.6 s",
    arguments: [
      (0, 50), (1, 50), (2, 100), (3, 200), (4, 400), (5, 800), (6, 1600), (7, 1600), (40, 1600),
    ]
  )
  func pauseAfterFailedSend(failures: Int, milliseconds: Int) {
    #expect(EngineChatChannel.pauseAfterFailedSend(failures) == .milliseconds(milliseconds))
  }
}
