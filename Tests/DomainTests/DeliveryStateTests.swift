import Domain
import Testing

@Suite("ChatMessage.DeliveryState")
struct DeliveryStateTests {
  @Test("only a failed message is failed, whatever its reason")
  func isFailed() {
    #expect(ChatMessage.DeliveryState.failed(reason: "").isFailed)
    #expect(ChatMessage.DeliveryState.failed(reason: "forbidden").isFailed)
    for state: ChatMessage.DeliveryState in [.pending, .sending, .sent] {
      #expect(!state.isFailed)
    }
  }
}
