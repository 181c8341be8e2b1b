/// The texts of the demo data set (Korean and English, as the academy writes).
enum Content {
  /// 25 questions: 21 past days, today, three scheduled.
  static let questions = [
    "오늘 가장 뿌듯했던 순간은 언제였나요?",
    "What made you smile today?",
    "요즘 가장 많이 쓰는 Swift 문법은?",
    "Which bug taught you the most, and why?",
    "팀 프로젝트에서 가장 어려웠던 점은 무엇인가요?",
    "If you could rewrite one file of your app, which one?",
    "아카데미에 오기 전의 나에게 한마디 한다면?",
    "What is your favourite Xcode shortcut?",
    "오늘 배운 것 중 하나를 친구에게 설명해 보세요.",
    "Which WWDC session would you recommend to a newcomer?",
    "가장 좋아하는 앱과 그 이유는?",
    "How do you take a break when you are stuck?",
    "SwiftUI와 UIKit 중 요즘 더 편한 쪽은?",
    "What did you learn from your last code review?",
    "협업할 때 꼭 지키고 싶은 규칙이 있다면?",
    "Which design pattern finally clicked for you this month?",
    "오늘 하루를 이모지 세 개로 표현한다면?",
    "What is one thing you want to ship before the end of the term?",
    "최근에 읽은 기술 블로그 글을 추천해 주세요.",
    "How do you name your branches and commits?",
    "테스트 코드를 처음 작성했을 때 어땠나요?",
    "오늘 러닝메이트에게 고마웠던 일은?",
    "Which API surprised you this week?",
    "다음 챌린지에서 도전해 보고 싶은 기술은?",
    "What would you build if you had one free week?",
  ]

  static let answers = [
    "빌드가 한 번에 성공했을 때요! 🎉",
    "A teammate fixed my build with one line.",
    "async/await 덕분에 콜백 지옥에서 탈출했어요.",
    "Finally understood why my view redrew twice.",
    "회고 시간에 칭찬을 들었어요.",
    "Pairing with someone from the afternoon session.",
    "guard let 없으면 못 살아요.",
    "Cmd+Shift+O, every single day.",
    "코드 리뷰에서 좋은 질문을 받아서 많이 배웠어요.",
    "Writing the first test before the feature felt slow, then it saved me.",
    "산책하면서 문제를 다시 생각해 봐요.",
    "A coffee and a rubber duck.",
    "요즘은 SwiftUI가 더 편해요. 프리뷰 최고!",
    "UIKit still, but Observation is changing my mind.",
    "커밋 메시지는 짧고 명확하게!",
    "Dependency injection, thanks to a long evening with TCA.",
    "☕️💻😴",
    "Shipping offline support for our chat.",
    "접근성 관련 글이 정말 유익했어요.",
    "feature/issue-number-short-name, always.",
    "처음엔 귀찮았는데 지금은 안심이 돼요.",
    "발표 자료를 같이 봐 줘서 고마웠어요.",
    "AsyncStream is more flexible than I thought.",
    "Swift Testing으로 전부 옮겨 보고 싶어요.",
    "A tiny app that reminds me to drink water.",
    "오늘은 그냥 푹 쉬고 싶어요.",
    "Reading the Swift evolution proposals with friends.",
    "에러 메시지를 끝까지 읽는 습관이 생겼어요.",
  ]

  /// 40 posts.
  static let posts = [
    "금요일에 SwiftUI 스터디 하실 분 있나요?",
    "Anyone up for a SwiftUI study session on Friday?",
    "C5 세미나실 에어컨 너무 추워요 🥶",
    "Lost a black AirPods case near the lounge, please DM me.",
    "점심 메뉴 추천 받아요! 포항 맛집 알려주세요.",
    "Tip: Instruments' Time Profiler found my slow list in two minutes.",
    "오늘 멘토링 너무 좋았어요. 질문 많이 하세요!",
    "Is anyone else getting signing errors after the Xcode update?",
    "코드 리뷰 문화에 대해 이야기 나눠요.",
    "Free stickers at the front desk until Friday.",
    "챌린지 주제 정하기가 제일 어려운 것 같아요.",
    "How do you all organise your Swift packages?",
    "밤샘 코딩 후 해 뜨는 거 보니까 감성 폭발",
    "Our team just shipped TestFlight build #42!",
    "TCA 처음 써보는데 Reducer 나누는 기준이 궁금해요.",
    "Looking for a running buddy for the 7 am loop.",
    "아카데미 도서관에 새 책 들어왔어요.",
    "Does anyone have a spare USB-C to Lightning cable?",
    "디자이너분들과 협업할 때 피그마 어떻게 쓰세요?",
    "Git rebase vs merge: the eternal debate continues.",
    "오늘 발표 긴장했는데 다들 따뜻하게 봐주셔서 감사해요.",
    "Snapshot tests saved our release today.",
    "포항 바다 보러 갈 사람~",
    "What is your favourite SF Symbol?",
    "Combine에서 async/await로 옮기는 중인데 팁 있나요?",
    "Study room B is booked all week, sorry!",
    "익명 게시판 덕분에 질문하기 편해요.",
    "Accessibility audit checklist, anyone?",
    "네트워크 레이어 설계 고민 중입니다.",
    "Core Data or SwiftData for a new project?",
    "오늘의 질문 답변 보고 많이 공감했어요.",
    "Pair programming session tonight at 8 in the lounge.",
    "키보드 추천해 주세요. 적축? 갈축?",
    "Found a great talk about modular architecture.",
    "커피머신 고쳐졌어요!!",
    "Anyone tried Swift on the server with Hummingbird?",
    "이번 주 회고: 작은 성공을 자주 기록하자.",
    "Who wants to review my first open-source PR?",
    "마감 전날 밤의 집중력은 어디서 오는 걸까요",
    "Thank you, mentors, for the patient feedback this week.",
  ]

  static let comments = [
    "저요! 참여하고 싶어요.",
    "Count me in!",
    "담요 챙겨 가세요 ㅋㅋ",
    "I saw one at the front desk.",
    "효자시장 칼국수 추천합니다.",
    "Great tip, thanks!",
    "저도 같은 문제 있었어요. 클린 빌드 해보세요.",
    "Delete DerivedData and try again.",
    "좋은 글 감사합니다 🙏",
    "Same here, following this thread.",
    "멋져요! 축하해요 🎉",
    "Feature modules per screen worked well for us.",
    "저도 같이 뛰어요!",
    "I have one, come find me after lunch.",
    "컴포넌트 이름을 코드와 맞추는 게 중요했어요.",
    "Rebase for local work, merge for shared branches.",
    "바다 좋아요 🌊",
    "swift.fill, obviously.",
    "저는 async/await가 훨씬 읽기 쉬웠어요.",
    "SwiftData if you can target the latest OS.",
    "Hummingbird is really nice for small services.",
    "리뷰 해드릴게요!",
  ]

  struct Group {
    var name: String
    var description: String
    var messages: [String]
  }

  static let groups = [
    Group(
      name: "Swift Concurrency",
      description: "We read one chapter a week and build a small demo.",
      messages: [
        "This week: actors and reentrancy.", "Demo idea: a rate limiter actor?",
        "좋아요, 저는 테스트 코드 맡을게요.", "See you at 7!",
      ]),
    Group(
      name: "알고리즘 스터디",
      description: "매주 월/목 백준 문제 풀이, 코드 리뷰는 PR로!",
      messages: ["이번 주는 그래프 탐색입니다.", "BFS 문제 3개 올려뒀어요.", "저 오늘 조금 늦어요 🙏"]),
    Group(
      name: "Design Systems",
      description: "Designers and developers building a shared component library.",
      messages: [
        "Figma tokens are exported, please check the colours.", "다크 모드 대비가 조금 낮아요.",
      ]),
    Group(
      name: "새벽 러닝",
      description: "매일 아침 7시 형산강 5km. 초보 환영!",
      messages: ["내일 비 온대요, 실내 트랙에서 만나요.", "Running shoes on!"]),
  ]

  static let directMessages = [
    "안녕하세요! 스터디 자료 공유해 주실 수 있나요?",
    "Sure, I will send the link tonight.",
    "감사합니다 🙌",
    "No problem, see you on Friday.",
  ]
}
